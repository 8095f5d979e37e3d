package simulate

import (
	"errors"
	"fmt"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

// Each step of the providers' side: the events Paddle sends for it, and a line for the timeline.

func (m *model) checkout(a Args, at time.Time, custom map[string]any) ([]event, error) {
	label := a.Sub
	if label == "" {
		label = "main"
	}
	if _, dup := m.subs[label]; dup {
		return nil, fmt.Errorf("subscription %q exists already (name another with sub:)", label)
	}
	tier, ok := m.tiers.ByName(a.Tier)
	if !ok || len(tier.PaddlePriceIDs) == 0 {
		return nil, fmt.Errorf("tier %q is not a paid tier of the tiers file", a.Tier)
	}
	price := a.Price
	if price == "" {
		price = tier.PaddlePriceIDs[0]
	} else if !tier.HasPrice(price) {
		return nil, fmt.Errorf("price %q is not one of tier %s's", price, tier.Name)
	}
	s := &sub{label: label, id: m.ids.make("sub_", "sub:"+label), status: "active", tier: tier, price: price,
		quantity: max(a.Seats, 1), interval: "month", frequency: 1, created: at, started: at, custom: custom}
	if p, ok := m.tiers.Price(price); ok && p.Interval != "" {
		s.interval, s.frequency = p.Interval, max(p.Frequency, 1)
	}
	p := trigger.Period{Start: at, End: addInterval(at, s.interval, s.frequency)}
	total := m.amount(price) * int64(s.quantity)
	created := "subscription.activated"
	if a.Trial != "" {
		end, err := clock.Advance(at, a.Trial)
		if err != nil {
			return nil, fmt.Errorf("trial: %w", err)
		}
		p.End, s.trialEnd, s.status, total, created = end, &end, "trialing", 0, "subscription.trialing"
	} else {
		s.firstBilled = &at
	}
	s.period = &p
	m.subs[label] = s
	t, tev, err := m.charge(s, "web", "checkout-"+label, total, p, at)
	if err != nil {
		return nil, err
	}
	s.checkout = t
	if total > 0 {
		s.paying = t
	}
	cev, err := m.subEvent(s, "subscription.created", at)
	if err != nil {
		return nil, err
	}
	aev, err := m.subEvent(s, created, at)
	return []event{tev, cev, aev}, err
}

func (m *model) pack(a Args, at time.Time, custom map[string]any) ([]event, error) {
	m.packs++
	label := a.As
	if label == "" {
		label = fmt.Sprintf("pack%d", m.packs)
	}
	if _, dup := m.txns[label]; dup {
		return nil, fmt.Errorf("a transaction is already labelled %q", label)
	}
	qty := max(a.Quantity, 1)
	t := &txn{label: label, id: m.ids.make("txn_", "txn:"+label), origin: "web", total: 1000 * int64(qty)}
	m.txns[label] = t
	ev, err := m.paddle("transaction.completed", at, trigger.PaddleTransaction{ID: t.id, CustomerID: m.customer,
		Origin: "web", Items: []trigger.PaddleItem{{Price: a.Price, Product: "pro_credits", Name: "credits", Quantity: qty,
			Amount: 1000}}, Total: t.total, CustomData: custom, At: at}.Data())
	return []event{ev}, err
}

// change is a plan change (tier) or a seat change (quantity) of s. An upgrade or more seats is charged at
// once, prorated (pay: ok); pay: fails leaves the subscription as it was (Paddle's prevent_change);
// pay: none applies it without a charge (a downgrade, or a change made with do_not_bill).
func (m *model) change(s *sub, tierName string, quantity int, a Args, at time.Time) (string, []event, error) {
	tier := s.tier
	if tierName != "" {
		var ok bool
		if tier, ok = m.tiers.ByName(tierName); !ok || len(tier.PaddlePriceIDs) == 0 {
			return "", nil, fmt.Errorf("tier %q is not a paid tier of the tiers file", tierName)
		}
	}
	price := s.price
	if tier.Name != s.tier.Name {
		price = a.Price
		if price == "" {
			price = m.priceLike(tier, s.interval)
		}
		if quantity == 0 {
			quantity = 1
			if tier.CreditsPerSeat {
				quantity = s.quantity
			}
		}
	}
	if quantity == 0 {
		quantity = s.quantity
	}
	if s.period == nil || (s.status != "active" && s.status != "trialing" && s.status != "past_due") {
		return "", nil, fmt.Errorf("subscription %s is %s: nothing to change", s.label, s.status)
	}
	before := m.amount(s.price) * int64(s.quantity)
	after := m.amount(price) * int64(quantity)
	pay := a.Pay
	if pay == "" {
		pay = "none"
		if tier.Rank > s.tier.Rank || (tier.Rank == s.tier.Rank && after > before) {
			pay = "ok"
		}
	}
	switch pay {
	case "fails":
		return "Paddle: the change's payment fails; the subscription stays as it was", nil, nil
	case "ok", "none":
	default:
		return "", nil, fmt.Errorf("pay: %q (ok, fails or none)", pay)
	}
	s.tier, s.price, s.quantity = tier, price, quantity
	var out []event
	what := "Paddle: the change is applied without a charge"
	if pay == "ok" {
		left, whole := s.period.End.Sub(at), s.period.End.Sub(s.period.Start)
		total := max((after-before)*int64(left/time.Second)/max(int64(whole/time.Second), 1), 1)
		t, ev, err := m.charge(s, "subscription_update", a.As, total, trigger.Period{Start: at, End: s.period.End}, at)
		if err != nil {
			return "", nil, err
		}
		s.paying, out, what = t, append(out, ev), fmt.Sprintf("Paddle: charged %d now (prorated)", total)
	}
	ev, err := m.subEvent(s, "subscription.updated", at)
	return what, append(out, ev), err
}

// priceLike is the tier's price of the same billing interval (the API's plan change picks the same), else
// its first.
func (m *model) priceLike(tier billing.Tier, interval string) string {
	for _, id := range tier.PaddlePriceIDs {
		if p, ok := m.tiers.Price(id); ok && p.Interval == interval {
			return id
		}
	}
	return first(tier.PaddlePriceIDs)
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// payment sets whether s's charges succeed; `ok` on a past_due subscription pays its period now.
func (m *model) payment(s *sub, outcome string, at time.Time) (string, []event, error) {
	switch outcome {
	case "fails":
		s.fails = true
		return "the card will be declined from now on", nil, nil
	case "ok":
	default:
		return "", nil, fmt.Errorf("payment: %q (ok or fails)", outcome)
	}
	s.fails = false
	if s.status != "past_due" {
		return "the card works again", nil, nil
	}
	s.status = "active"
	t, tev, err := m.charge(s, "subscription_recurring", "", m.amount(s.price)*int64(max(s.quantity, 1)), *s.period, at)
	if err != nil {
		return "", nil, err
	}
	s.paying = t
	sev, err := m.subEvent(s, "subscription.updated", at)
	return "Paddle: dunning recovers, the period is paid", []event{tev, sev}, err
}

// refund adjusts a transaction: `of` names it (current: the one that paid the subscription's current
// period; checkout; a pack's or a change's label). Approved and full unless the step says otherwise.
func (m *model) refund(a Args, at time.Time) ([]event, error) {
	var t *txn
	switch a.Of {
	case "", "current", "checkout":
		s, err := m.sub("")
		if err != nil {
			return nil, err
		}
		if t = s.paying; a.Of == "checkout" {
			t = s.checkout
		}
	default:
		t = m.txns[a.Of]
	}
	if t == nil {
		return nil, fmt.Errorf("refund of %q: no such transaction", a.Of)
	}
	label := a.As
	if label == "" {
		label = fmt.Sprintf("adjustment%d", len(m.adjs)+1)
	}
	adj := &adjustment{label: label, a: trigger.PaddleAdjustment{ID: m.ids.make("adj_", "adj:"+label), TransactionID: t.id,
		CustomerID: m.customer, Action: or(a.Kind, "refund"), Type: or(a.Type, "full"), Status: or(a.Status, "approved"),
		Total: t.total, At: at}}
	if t.sub != nil {
		adj.a.SubscriptionID = t.sub.id
	}
	m.adjs[label] = adj
	ev, err := m.paddle("adjustment.created", at, adj.a.Data())
	return []event{ev}, err
}

func (m *model) approve(label string, at time.Time) ([]event, error) {
	adj, ok := m.adjs[label]
	if !ok {
		return nil, fmt.Errorf("approve: no adjustment %q", label)
	}
	adj.a.Status, adj.a.At = "approved", at
	ev, err := m.paddle("adjustment.updated", at, adj.a.Data())
	return []event{ev}, err
}

// schedule cancels or pauses s at the period's end (a snapshot with scheduled_change), or now.
func (m *model) schedule(s *sub, action, when string, at time.Time) (string, []event, error) {
	if s.status == "canceled" || (s.status == "paused" && action == "pause") {
		return "", nil, fmt.Errorf("subscription %s is %s already", s.label, s.status)
	}
	if when == "" || when == "period_end" {
		if s.period == nil {
			return "", nil, fmt.Errorf("subscription %s has no billing period to end", s.label)
		}
		s.scheduled = &trigger.ScheduledChange{Action: action, EffectiveAt: s.period.End}
		ev, err := m.subEvent(s, "subscription.updated", at)
		return fmt.Sprintf("Paddle: %s scheduled for %s", action, s.period.End.Format(time.RFC3339)), []event{ev}, err
	}
	if when != "now" {
		return "", nil, fmt.Errorf("at: %q (period_end or now)", when)
	}
	s.scheduled = &trigger.ScheduledChange{Action: action, EffectiveAt: at}
	_, evs, err := m.due(s, at)
	return "Paddle: " + action + " now", evs, err
}

// resume ends a pause: Paddle starts a new billing period now and charges it. A pause still only
// scheduled is taken back instead.
func (m *model) resume(s *sub, at time.Time) (string, []event, error) {
	if s.scheduled != nil && s.scheduled.Action == "pause" {
		s.scheduled = nil
		ev, err := m.subEvent(s, "subscription.updated", at)
		return "Paddle: the scheduled pause is taken back", []event{ev}, err
	}
	if s.status != "paused" {
		return "", nil, errors.New("resume: the subscription is not paused")
	}
	p := trigger.Period{Start: at, End: addInterval(at, s.interval, s.frequency)}
	s.status, s.period, s.pausedAt = "active", &p, nil
	t, tev, err := m.charge(s, "subscription_recurring", "", m.amount(s.price)*int64(max(s.quantity, 1)), p, at)
	if err != nil {
		return "", nil, err
	}
	s.paying = t
	sev, err := m.subEvent(s, "subscription.resumed", at)
	return "Paddle: resumed, a new period is charged", []event{tev, sev}, err
}

// cardUpdate is a payment method change: Paddle completes a zero-value transaction, which pays nothing.
func (m *model) cardUpdate(s *sub, at time.Time) (string, []event, error) {
	p := trigger.Period{Start: at, End: at}
	if s.period != nil {
		p = *s.period
	}
	_, ev, err := m.charge(s, "subscription_payment_method_change", "", 0, p, at)
	return "Paddle: a zero-value transaction", []event{ev}, err
}

// accountDeleted is Paddle's answer to the cancellation a deletion requests for every live subscription
// (the paddle_cancel_subscription job): a cancel at the period's end.
func (m *model) accountDeleted(at time.Time) ([]event, error) {
	var out []event
	for _, l := range sortedKeys(m.subs) {
		s := m.subs[l]
		if (s.status == "active" || s.status == "trialing" || s.status == "past_due") && s.scheduled == nil && s.period != nil {
			_, evs, err := m.schedule(s, "cancel", "period_end", at)
			if err != nil {
				return nil, err
			}
			out = append(out, evs...)
		}
	}
	return out, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
