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
	default: // adjustment.created, adjustment.updated
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

func (p paddleSub) item() PaddleItem {
	return PaddleItem{Price: p.price, Product: "pro_" + p.tier, Name: p.tier, Quantity: 1, Amount: 1500,
		Interval: "month", Frequency: 1}
}

func (p paddleSub) subscription() map[string]any {
	next := p.end
	s := PaddleSubscription{ID: p.spec.Subscription, Status: subscriptionStatus[p.spec.Event], CustomerID: p.customer,
		Items: []PaddleItem{p.item()}, Period: &Period{p.start, p.end}, CreatedAt: p.start, StartedAt: p.start,
		FirstBilledAt: &p.start, NextBilledAt: &next, CustomData: p.customData, UpdatedAt: p.spec.At, TransactionID: p.txn}
	at := p.spec.At
	switch s.Status {
	case "paused":
		s.PausedAt, s.NextBilledAt = &at, nil
	case "canceled":
		s.CanceledAt, s.NextBilledAt = &at, nil
	case "trialing":
		s.FirstBilledAt = &next
	}
	return s.Data(p.spec.Event)
}

// renewal is the transaction.completed of the next period's charge.
func (p paddleSub) renewal() map[string]any {
	return PaddleTransaction{ID: "txn_" + randomID(26), Origin: "subscription_recurring", SubscriptionID: p.spec.Subscription,
		CustomerID: p.customer, Items: []PaddleItem{p.item()}, Total: 1500, Period: &Period{p.end, p.end.AddDate(0, 1, 0)},
		CustomData: p.customData, At: p.end}.Data()
}

// refund is an approved full refund of the transaction that paid the current period.
func (p paddleSub) refund() map[string]any {
	return PaddleAdjustment{ID: "adj_" + randomID(26), Action: "refund", Type: "full", Status: "approved",
		TransactionID: p.txn, SubscriptionID: p.spec.Subscription, CustomerID: p.customer, Total: 1500, At: p.spec.At}.Data()
}
