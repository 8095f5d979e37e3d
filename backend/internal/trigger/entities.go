package trigger

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Paddle's entities, explicit: what `fabrica simulate` needs to play a whole customer lifecycle (periods of
// any interval, seats, transactions of every origin, refunds of a given transaction) and what Spec's sample
// events are built from. Data renders each in the shape Paddle's webhooks carry (developer.paddle.com),
// with the fields billing reads and those around them.

// Period is a billing period.
type Period struct{ Start, End time.Time }

// PaddleItem is one line of a subscription or a transaction: a price, its quantity and unit amount.
type PaddleItem struct {
	Price, Product, Name string
	Quantity             int
	Amount               int64  // unit price in minor units
	Currency             string // default USD
	Interval             string // month, year, ...; "" for a one-time price
	Frequency            int    // default 1
	// Trial is a trialing item's trial (trial_dates).
	Trial *Period
}

// ScheduledChange is a subscription's scheduled_change: cancel, pause or resume at EffectiveAt.
type ScheduledChange struct {
	Action      string
	EffectiveAt time.Time
}

// PaddleSubscription is a subscription snapshot.
type PaddleSubscription struct {
	ID, CustomerID, Status, Currency string
	Items                            []PaddleItem
	// Period is current_billing_period; nil when Paddle sends none (canceled, paused).
	Period               *Period
	Interval             string // billing_cycle; default month
	Frequency            int
	CreatedAt, StartedAt time.Time
	FirstBilledAt        *time.Time
	NextBilledAt         *time.Time
	PausedAt, CanceledAt *time.Time
	Scheduled            *ScheduledChange
	// TransactionID is carried by subscription.created only.
	TransactionID string
	CustomData    map[string]any
	UpdatedAt     time.Time
}

// PaddleTransaction is a completed transaction: a checkout (origin web), a renewal
// (subscription_recurring), a plan or seat change's charge (subscription_update), a one-time purchase.
type PaddleTransaction struct {
	ID, SubscriptionID, CustomerID, Origin, Currency string
	Items                                            []PaddleItem
	Total                                            int64
	Period                                           *Period // billing_period
	CustomData                                       map[string]any
	At                                               time.Time
}

// PaddleAdjustment is a refund or chargeback of a transaction.
type PaddleAdjustment struct {
	ID, TransactionID, SubscriptionID, CustomerID string
	Action, Type, Status, Currency                string // refund|chargeback, full|partial, approved|pending_approval
	Total                                         int64
	At                                            time.Time
}

func orUSD(c string) string {
	if c == "" {
		return "USD"
	}
	return c
}

func tsOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return ts(*t)
}

func (p *Period) data() any {
	if p == nil {
		return nil
	}
	return map[string]any{"starts_at": ts(p.Start), "ends_at": ts(p.End)}
}

// price is the catalog price an item embeds.
func (it PaddleItem) price() map[string]any {
	var cycle any
	if it.Interval != "" {
		cycle = map[string]any{"interval": it.Interval, "frequency": max(it.Frequency, 1)}
	}
	product := it.Product
	if product == "" {
		product = "pro_" + it.Price
	}
	var trial any
	if it.Trial != nil {
		trial = map[string]any{"interval": "day", "frequency": int(it.Trial.End.Sub(it.Trial.Start).Hours() / 24)}
	}
	return map[string]any{"id": it.Price, "product_id": product, "name": it.Name, "description": it.Name,
		"type": "standard", "tax_mode": "account_setting", "billing_cycle": cycle, "trial_period": trial,
		"unit_price": map[string]any{"amount": strconv.FormatInt(it.Amount, 10), "currency_code": orUSD(it.Currency)},
		"status":     "active", "quantity": map[string]any{"minimum": 1, "maximum": 999}}
}

// Data is the subscription as the data of an event of eventType (created carries transaction_id and no
// management_urls).
func (s PaddleSubscription) Data(eventType string) map[string]any {
	interval := s.Interval
	if interval == "" {
		interval = "month"
	}
	items := make([]any, 0, len(s.Items))
	for _, it := range s.Items {
		status := "active"
		var trial any
		if it.Trial != nil {
			status, trial = "trialing", map[string]any{"starts_at": ts(it.Trial.Start), "ends_at": ts(it.Trial.End)}
		}
		var prev any
		if s.Period != nil {
			prev = ts(s.Period.Start)
		}
		items = append(items, map[string]any{"status": status, "quantity": max(it.Quantity, 1), "recurring": it.Interval != "",
			"created_at": ts(s.CreatedAt), "updated_at": ts(s.UpdatedAt), "previously_billed_at": prev,
			"next_billed_at": tsOrNil(s.NextBilledAt), "trial_dates": trial, "price": it.price(),
			"product": map[string]any{"id": it.price()["product_id"], "name": it.Name, "type": "standard", "status": "active"}})
	}
	var scheduled any
	if s.Scheduled != nil {
		scheduled = map[string]any{"action": s.Scheduled.Action, "effective_at": ts(s.Scheduled.EffectiveAt), "resume_at": nil}
	}
	d := map[string]any{"id": s.ID, "status": s.Status, "customer_id": s.CustomerID, "address_id": "add_dev",
		"business_id": nil, "currency_code": orUSD(s.Currency), "created_at": ts(s.CreatedAt), "updated_at": ts(s.UpdatedAt),
		"started_at": ts(s.StartedAt), "first_billed_at": tsOrNil(s.FirstBilledAt), "next_billed_at": tsOrNil(s.NextBilledAt),
		"paused_at": tsOrNil(s.PausedAt), "canceled_at": tsOrNil(s.CanceledAt), "collection_mode": "automatic",
		"billing_details": nil, "current_billing_period": s.Period.data(),
		"billing_cycle":    map[string]any{"interval": interval, "frequency": max(s.Frequency, 1)},
		"scheduled_change": scheduled, "items": items, "custom_data": s.CustomData,
		"management_urls": map[string]any{"update_payment_method": nil, "cancel": nil}, "discount": nil, "import_meta": nil}
	if eventType == "subscription.created" {
		d["transaction_id"] = s.TransactionID
		delete(d, "management_urls")
	}
	return d
}

func totals(total int64, currency string) map[string]any {
	n := strconv.FormatInt(total, 10)
	return map[string]any{"subtotal": n, "tax": "0", "total": n, "grand_total": n, "currency_code": orUSD(currency)}
}

// Data is the transaction as a transaction.completed carries it.
func (t PaddleTransaction) Data() map[string]any {
	items := make([]any, 0, len(t.Items))
	for _, it := range t.Items {
		items = append(items, map[string]any{"price": it.price(), "quantity": max(it.Quantity, 1)})
	}
	var sub, customer any
	if t.SubscriptionID != "" {
		sub = t.SubscriptionID
	}
	if t.CustomerID != "" {
		customer = t.CustomerID
	}
	return map[string]any{"id": t.ID, "status": "completed", "origin": t.Origin, "subscription_id": sub,
		"customer_id": customer, "address_id": "add_dev", "currency_code": orUSD(t.Currency), "collection_mode": "automatic",
		"billing_period": t.Period.data(), "items": items,
		"details":     map[string]any{"totals": totals(t.Total, t.Currency)},
		"custom_data": t.CustomData, "billed_at": ts(t.At), "created_at": ts(t.At), "updated_at": ts(t.At)}
}

// Data is the adjustment as adjustment.created and adjustment.updated carry it.
func (a PaddleAdjustment) Data() map[string]any {
	var sub any
	if a.SubscriptionID != "" {
		sub = a.SubscriptionID
	}
	return map[string]any{"id": a.ID, "action": a.Action, "type": a.Type, "status": a.Status,
		"transaction_id": a.TransactionID, "subscription_id": sub, "customer_id": a.CustomerID,
		"reason": "requested by customer", "currency_code": orUSD(a.Currency),
		"totals": map[string]any{"subtotal": strconv.FormatInt(a.Total, 10), "tax": "0",
			"total": strconv.FormatInt(a.Total, 10), "currency_code": orUSD(a.Currency)},
		"created_at": ts(a.At), "updated_at": ts(a.At)}
}

// PaddleEvent wraps data in Paddle's envelope (event id, type, occurred_at) and signs it at b.Now().
func (b *Builder) PaddleEvent(eventType, eventID string, occurred time.Time, data map[string]any) (Delivery, error) {
	body, err := json.Marshal(map[string]any{"event_id": eventID, "event_type": eventType,
		"occurred_at": occurred.UTC().Format(time.RFC3339Nano), "notification_id": "ntf_" + randomID(26), "data": data})
	if err != nil {
		return Delivery{}, err
	}
	return b.Sign(webhook.ProviderPaddle, Delivery{EventID: eventID, Body: body})
}

// Sign (re)signs a delivery at b.Now(): each attempt of a real provider carries a fresh signature
// timestamp, so a delivery retried or redelivered later must be signed again.
func (b *Builder) Sign(provider string, d Delivery) (Delivery, error) {
	if b.Now == nil {
		b.Now = time.Now
	}
	h := http.Header{}
	switch provider {
	case webhook.ProviderPaddle:
		h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(b.Secrets.Paddle, b.Now(), d.Body))
	case webhook.ProviderClerk:
		var err error
		if h, err = webhook.SignSvix(b.Secrets.Clerk, d.EventID, b.Now(), d.Body); err != nil {
			return Delivery{}, err
		}
	default:
		return Delivery{}, fmt.Errorf("%w: %s", ErrUnknownEvent, provider)
	}
	h.Set("Content-Type", "application/json")
	d.Header = h
	return d, nil
}

// CustomData is what a checkout puts in custom_data for user and email, signed at issued as
// POST /billing/checkout signs it (the signature binds the user, not the price).
func (b *Builder) CustomData(user, email string, issued time.Time) map[string]any {
	return map[string]any{"clerk_user_id": user, "email": email,
		"checkout_sig": b.checkoutSig(Spec{User: user, Email: email, At: issued.Add(time.Minute)})}
}
