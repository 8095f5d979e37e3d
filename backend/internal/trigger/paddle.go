package trigger

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// subscriptionStatus is the status a subscription event's snapshot carries.
var subscriptionStatus = map[string]string{
	"subscription.created": "active", "subscription.activated": "active", "subscription.updated": "active",
	"subscription.trialing": "trialing", "subscription.paused": "paused", "subscription.resumed": "active",
	"subscription.past_due": "past_due", "subscription.canceled": "canceled",
}

// paddle builds a Paddle-signed event. The subscription's billing period is the current calendar month
// (UTC), so events triggered one after the other describe the same period, as Paddle's would.
func (b *Builder) paddle(s Spec) (Delivery, error) {
	if s.Tier == "" {
		s.Tier = "pro"
	}
	tier, ok := b.Tiers.ByName(s.Tier)
	if !ok || len(tier.PaddlePriceIDs) == 0 {
		return Delivery{}, fmt.Errorf("trigger: --tier %q is not a paid tier of the tiers file", s.Tier)
	}
	if s.Subscription == "" {
		s.Subscription = "sub_" + strings.TrimPrefix(s.User, "user_")
	}
	id := s.EventID
	if id == "" {
		id = "evt_" + randomID(26)
	}
	price := tier.PaddlePriceIDs[0]
	if s.Price != "" {
		price = s.Price
	}
	start := time.Date(s.At.Year(), s.At.Month(), 1, 0, 0, 0, 0, time.UTC)
	p := paddleSub{spec: s, price: price, tier: tier.Name, start: start, end: start.AddDate(0, 1, 0),
		customer: "ctm_" + strings.TrimPrefix(s.User, "user_"), txn: "txn_" + strings.TrimPrefix(s.Subscription, "sub_"),
		customData: map[string]any{"clerk_user_id": s.User, "email": s.Email,
			"checkout_sig": b.checkoutSig(s)}}
	var data map[string]any
	switch {
	case strings.HasPrefix(s.Event, "subscription."):
		data = p.subscription()
	case s.Event == "transaction.completed":
		data = p.renewal()
	default: // adjustment.created
		data = p.refund()
	}
	body, err := json.Marshal(map[string]any{"event_id": id, "event_type": s.Event,
		"occurred_at": s.At.Format(time.RFC3339Nano), "notification_id": "ntf_" + randomID(26), "data": data})
	if err != nil {
		return Delivery{}, err
	}
	h := http.Header{}
	h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(b.Secrets.Paddle, b.Now(), body))
	h.Set("Content-Type", "application/json")
	return Delivery{EventID: id, Header: h, Body: body}, nil
}

// checkoutSig signs custom_data as POST /billing/checkout would have, a minute before the event.
func (b *Builder) checkoutSig(s Spec) string {
	return newSigner(b.Secrets.Checkout).Sign(s.User, s.Email, s.At.Add(-time.Minute))
}

type paddleSub struct {
	spec          Spec
	price, tier   string
	start, end    time.Time
	customer, txn string
	customData    map[string]any
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (p paddleSub) item(quantity int) map[string]any {
	cycle := map[string]any{"interval": "month", "frequency": 1}
	return map[string]any{"status": "active", "quantity": quantity, "recurring": true,
		"created_at": ts(p.start), "updated_at": ts(p.spec.At), "previously_billed_at": ts(p.start),
		"next_billed_at": ts(p.end), "trial_dates": nil,
		"price": map[string]any{"id": p.price, "product_id": "pro_" + p.tier, "name": p.tier, "description": p.tier + " (monthly)",
			"type": "standard", "tax_mode": "account_setting", "billing_cycle": cycle, "trial_period": nil,
			"unit_price": map[string]any{"amount": "1500", "currency_code": "USD"}, "status": "active",
			"quantity": map[string]any{"minimum": 1, "maximum": 1}},
		"product": map[string]any{"id": "pro_" + p.tier, "name": p.tier, "type": "standard", "status": "active"}}
}

func (p paddleSub) subscription() map[string]any {
	status := subscriptionStatus[p.spec.Event]
	d := map[string]any{"id": p.spec.Subscription, "status": status, "customer_id": p.customer, "address_id": "add_dev",
		"business_id": nil, "currency_code": "USD", "created_at": ts(p.start), "updated_at": ts(p.spec.At),
		"started_at": ts(p.start), "first_billed_at": ts(p.start), "next_billed_at": ts(p.end),
		"paused_at": nil, "canceled_at": nil, "collection_mode": "automatic", "billing_details": nil,
		"current_billing_period": map[string]any{"starts_at": ts(p.start), "ends_at": ts(p.end)},
		"billing_cycle":          map[string]any{"interval": "month", "frequency": 1},
		"scheduled_change":       nil, "items": []any{p.item(1)}, "custom_data": p.customData,
		"management_urls": map[string]any{"update_payment_method": nil, "cancel": nil}, "discount": nil, "import_meta": nil}
	switch status {
	case "paused":
		d["paused_at"], d["next_billed_at"] = ts(p.spec.At), nil
	case "canceled":
		d["canceled_at"], d["next_billed_at"] = ts(p.spec.At), nil
	case "trialing":
		d["first_billed_at"] = ts(p.end)
	}
	if p.spec.Event == "subscription.created" {
		d["transaction_id"] = p.txn
		delete(d, "management_urls") // Paddle's created event carries none
	}
	return d
}

// renewal is the transaction.completed of the next period's charge.
func (p paddleSub) renewal() map[string]any {
	next, after := p.end, p.end.AddDate(0, 1, 0)
	return map[string]any{"id": "txn_" + randomID(26), "status": "completed", "origin": "subscription_recurring",
		"subscription_id": p.spec.Subscription, "customer_id": p.customer, "address_id": "add_dev", "currency_code": "USD",
		"collection_mode": "automatic", "billing_period": map[string]any{"starts_at": ts(next), "ends_at": ts(after)},
		"items":       []any{map[string]any{"price": p.item(1)["price"], "quantity": 1}},
		"details":     map[string]any{"totals": map[string]any{"subtotal": "1500", "tax": "0", "total": "1500", "grand_total": "1500", "currency_code": "USD"}},
		"custom_data": p.customData, "billed_at": ts(next), "created_at": ts(next), "updated_at": ts(next)}
}

// refund is an approved full refund of the transaction that paid the current period.
func (p paddleSub) refund() map[string]any {
	return map[string]any{"id": "adj_" + randomID(26), "action": "refund", "type": "full", "status": "approved",
		"transaction_id": p.txn, "subscription_id": p.spec.Subscription, "customer_id": p.customer,
		"reason": "requested by customer", "currency_code": "USD",
		"totals":     map[string]any{"subtotal": "1500", "tax": "0", "total": "1500", "currency_code": "USD"},
		"created_at": ts(p.spec.At), "updated_at": ts(p.spec.At)}
}
