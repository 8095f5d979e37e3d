package simulate

import (
	"fmt"
	"sort"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The providers, played: a model of the customer at Paddle (subscriptions, transactions, adjustments) and
// at Clerk, which turns each step into the events the real providers would send for it, in the order and
// shape they send them. Paddle's side follows its documented behaviour: a checkout completes its
// transaction and sends subscription.created then .activated (or .trialing); a renewal completes a
// subscription_recurring transaction and updates the subscription to the new period; a charged plan or
// seat change completes a subscription_update transaction (prorated, charged at once) beside the
// snapshot; a failed renewal makes the subscription past_due with the new period; a scheduled cancel or
// pause is a snapshot with scheduled_change, then the canceled or paused snapshot at its time, without a
// billing period; a resume starts and charges a new period.

// event is one delivery the model produced: who sends it and the signed request.
type event struct {
	provider, typ string
	d             trigger.Delivery
}

// txn is a completed Paddle transaction of the model.
type txn struct {
	label, id, origin string
	sub               *sub // nil for a one-time purchase
	total             int64
}

// sub is one Paddle subscription of the model.
type sub struct {
	label, id          string
	status             string
	tier               billing.Tier
	price              string
	quantity           int
	interval           string
	frequency          int
	period             *trigger.Period
	created, started   time.Time
	firstBilled        *time.Time
	trialEnd           *time.Time
	scheduled          *trigger.ScheduledChange
	pausedAt, canceled *time.Time
	keepPeriod         bool // the canceled snapshot keeps its billing period
	fails              bool // charges fail until `payment: ok`
	paying             *txn // the transaction that paid the current period
	checkout           *txn
	custom             map[string]any
	n                  int // transactions so far, for labels
}

type adjustment struct {
	label string
	a     trigger.PaddleAdjustment
}

// model is the customer at the providers.
type model struct {
	b              *trigger.Builder
	tiers          *billing.Tiers
	ids            *ids
	clerkID, email string
	customer       string
	subs           map[string]*sub
	txns           map[string]*txn
	adjs           map[string]*adjustment
	packs, events  int
	last           time.Time // the last occurred_at handed out: snapshots must be strictly ordered
}

// stamp is the occurred_at of the next event at t: never before one already sent, so two steps at the
// same simulated instant still give Paddle's newest-wins ordering the order they happened in.
func (m *model) stamp(t time.Time) time.Time {
	if !t.After(m.last) {
		t = m.last.Add(time.Millisecond)
	}
	m.last = t
	return t
}

func (m *model) paddle(typ string, at time.Time, data map[string]any) (event, error) {
	m.events++
	d, err := m.b.PaddleEvent(typ, m.ids.make("evt_", fmt.Sprintf("evt:%d", m.events)), m.stamp(at), data)
	return event{provider: webhook.ProviderPaddle, typ: typ, d: d}, err
}

func (m *model) signup(at time.Time) (event, error) {
	m.events++
	d, err := m.b.Build(trigger.Spec{Provider: webhook.ProviderClerk, Event: "user.created", User: m.clerkID,
		Email: m.email, EventID: m.ids.make("msg_", fmt.Sprintf("msg:%d", m.events)), At: m.stamp(at)})
	return event{provider: webhook.ProviderClerk, typ: "user.created", d: d}, err
}

// amount is a price's unit amount from the tiers file (1500 when it names none).
func (m *model) amount(price string) int64 {
	if p, ok := m.tiers.Price(price); ok && p.HasAmount {
		return p.Amount
	}
	return 1500
}

func (s *sub) item(m *model) trigger.PaddleItem {
	it := trigger.PaddleItem{Price: s.price, Product: "pro_" + s.tier.Name, Name: s.tier.Name, Quantity: s.quantity,
		Amount: m.amount(s.price), Interval: s.interval, Frequency: s.frequency}
	if s.trialEnd != nil && s.period != nil {
		it.Trial = &trigger.Period{Start: s.period.Start, End: *s.trialEnd}
	}
	return it
}

func (s *sub) snapshot(m *model, at time.Time) trigger.PaddleSubscription {
	ps := trigger.PaddleSubscription{ID: s.id, CustomerID: m.customer, Status: s.status, Items: []trigger.PaddleItem{s.item(m)},
		Interval: s.interval, Frequency: s.frequency, CreatedAt: s.created, StartedAt: s.started, FirstBilledAt: s.firstBilled,
		PausedAt: s.pausedAt, CanceledAt: s.canceled, Scheduled: s.scheduled, CustomData: s.custom, UpdatedAt: at}
	if s.period != nil {
		p := *s.period
		ps.Period = &p
		if s.status == "active" || s.status == "trialing" || s.status == "past_due" {
			ps.NextBilledAt = &p.End
		}
	}
	if s.checkout != nil {
		ps.TransactionID = s.checkout.id
	}
	return ps
}

func (m *model) subEvent(s *sub, typ string, at time.Time) (event, error) {
	return m.paddle(typ, at, s.snapshot(m, at).Data(typ))
}

// charge completes a transaction of s (origin, total, billing period) and returns its event.
func (m *model) charge(s *sub, origin, label string, total int64, p trigger.Period, at time.Time) (*txn, event, error) {
	s.n++
	if label == "" {
		short := map[string]string{"subscription_recurring": "renewal", "subscription_update": "change",
			"subscription_payment_method_change": "card"}[origin]
		label = fmt.Sprintf("%s-%s-%d", or(short, origin), s.label, s.n)
	}
	t := &txn{label: label, id: m.ids.make("txn_", "txn:"+label), origin: origin, sub: s, total: total}
	if _, dup := m.txns[label]; dup {
		return nil, event{}, fmt.Errorf("a transaction is already labelled %q", label)
	}
	m.txns[label] = t
	ev, err := m.paddle("transaction.completed", at, trigger.PaddleTransaction{ID: t.id, SubscriptionID: s.id,
		CustomerID: m.customer, Origin: origin, Items: []trigger.PaddleItem{s.item(m)}, Total: total, Period: &p,
		CustomData: s.custom, At: at}.Data())
	return t, ev, err
}

func (m *model) sub(label string) (*sub, error) {
	if label == "" {
		if len(m.subs) == 1 {
			for _, s := range m.subs {
				return s, nil
			}
		}
		label = "main"
	}
	s, ok := m.subs[label]
	if !ok {
		return nil, fmt.Errorf("no subscription %q (check out first)", label)
	}
	return s, nil
}

// next is the model's next event in time: a renewal (or a trial's end) at a period's end, or a scheduled
// cancel or pause at its time; ok is false when nothing is due. A past_due subscription waits for a
// `payment` or `cancel` step (Paddle's dunning).
func (m *model) next() (at time.Time, s *sub, ok bool) {
	labels := make([]string, 0, len(m.subs))
	for l := range m.subs {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, l := range labels {
		c := m.subs[l]
		if (c.status != "active" && c.status != "trialing") || c.period == nil {
			continue
		}
		t := c.period.End
		if c.scheduled != nil {
			t = c.scheduled.EffectiveAt
		}
		if !ok || t.Before(at) {
			at, s, ok = t, c, true
		}
	}
	return at, s, ok
}

// monthStart is the start of month k of a period starting at start, as billing counts them (UTC, the day
// clamped to the month's end, counted from the start each time).
func monthStart(start time.Time, k int) time.Time {
	s := start.UTC()
	y, mo, d := s.Date()
	first := time.Date(y, mo+time.Month(k), 1, s.Hour(), s.Minute(), s.Second(), s.Nanosecond(), time.UTC)
	if last := time.Date(first.Year(), first.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
		d = last
	}
	return first.AddDate(0, 0, d-1)
}

// boundary is the next time after t at which the server's jobs have something of the model's to do: a
// month start inside a subscription's period (its grant, the last month's expiry), or the end of a canceled
// subscription's paid period (the downgrade). Advancing stops at each, so the jobs run at the times they
// would in production, not once at the end of a long jump.
func (m *model) boundary(t time.Time) (time.Time, bool) {
	var best time.Time
	found := false
	consider := func(c time.Time) {
		if c.After(t) && (!found || c.Before(best)) {
			best, found = c, true
		}
	}
	for _, s := range m.subs {
		if s.period == nil || s.status == "paused" {
			continue
		}
		for k := 1; ; k++ {
			ms := monthStart(s.period.Start, k)
			if !ms.Before(s.period.End) {
				break
			}
			if ms.After(t) {
				consider(ms)
				break
			}
		}
		if s.status == "canceled" {
			consider(s.period.End)
		}
	}
	return best, found
}

func addInterval(t time.Time, interval string, n int) time.Time {
	n = max(n, 1)
	switch interval {
	case "year":
		return t.AddDate(n, 0, 0)
	case "week":
		return t.AddDate(0, 0, 7*n)
	case "day":
		return t.AddDate(0, 0, n)
	}
	return t.AddDate(0, n, 0)
}

// due runs what Paddle does at s's next time: the scheduled change, or the renewal.
func (m *model) due(s *sub, at time.Time) (string, []event, error) {
	if c := s.scheduled; c != nil {
		s.scheduled = nil
		switch c.Action {
		case "cancel":
			s.status, s.canceled = "canceled", &c.EffectiveAt
			if !s.keepPeriod {
				s.period = nil
			}
			ev, err := m.subEvent(s, "subscription.canceled", at)
			return "Paddle: the scheduled cancellation takes effect", []event{ev}, err
		default: // pause
			s.status, s.pausedAt, s.period = "paused", &c.EffectiveAt, nil
			ev, err := m.subEvent(s, "subscription.paused", at)
			return "Paddle: the scheduled pause takes effect", []event{ev}, err
		}
	}
	trial := s.status == "trialing"
	p := trigger.Period{Start: s.period.End, End: addInterval(s.period.End, s.interval, s.frequency)}
	s.period, s.trialEnd = &p, nil
	if s.firstBilled == nil || trial {
		s.firstBilled = &p.Start
	}
	if s.fails {
		s.status = "past_due"
		ev, err := m.subEvent(s, "subscription.past_due", at)
		return "Paddle: the renewal's payment fails (past due)", []event{ev}, err
	}
	s.status = "active"
	t, tev, err := m.charge(s, "subscription_recurring", "", m.amount(s.price)*int64(max(s.quantity, 1)), p, at)
	if err != nil {
		return "", nil, err
	}
	s.paying = t
	typ, what := "subscription.updated", "Paddle: renewal"
	if trial {
		typ, what = "subscription.activated", "Paddle: the trial ends, the first period is charged"
	}
	sev, err := m.subEvent(s, typ, at)
	return what, []event{tev, sev}, err
}
