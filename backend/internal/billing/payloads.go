package billing

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Paddle webhook payloads: only the fields the policy reads. Every subscription event carries a full
// snapshot of the subscription, so handlers converge on the newest one whatever the arrival order.

type envelope struct {
	EventID    string          `json:"event_id"`
	EventType  string          `json:"event_type"`
	OccurredAt time.Time       `json:"occurred_at"`
	Data       json.RawMessage `json:"data"`
}

type period struct {
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at"`
}

type item struct {
	Price struct {
		ID string `json:"id"`
	} `json:"price"`
}

// customData is what our checkout puts on the transaction; Paddle copies it to the subscription and to
// every later transaction.
type customData struct {
	ClerkUserID string `json:"clerk_user_id"`
	Email       string `json:"email"`
	CheckoutSig string `json:"checkout_sig"`
}

type subscriptionData struct {
	ID                   string          `json:"id"`
	Status               string          `json:"status"`
	CustomerID           string          `json:"customer_id"`
	TransactionID        string          `json:"transaction_id"` // subscription.created only
	CurrentBillingPeriod *period         `json:"current_billing_period"`
	ScheduledChange      json.RawMessage `json:"scheduled_change"`
	CanceledAt           *time.Time      `json:"canceled_at"`
	Items                []item          `json:"items"`
	CustomData           *customData     `json:"custom_data"`
}

type transactionData struct {
	ID      string `json:"id"`
	Origin  string `json:"origin"`
	Details *struct {
		Totals *struct {
			// Total is in the currency's minor units, as a decimal string ("1500").
			Total string `json:"total"`
		} `json:"totals"`
	} `json:"details"`
	SubscriptionID *string     `json:"subscription_id"`
	CustomerID     *string     `json:"customer_id"`
	BillingPeriod  *period     `json:"billing_period"`
	Items          []item      `json:"items"`
	CustomData     *customData `json:"custom_data"`
}

// total is the transaction's grand total in minor units; 0 when absent or unreadable.
func (t transactionData) total() int64 {
	if t.Details == nil || t.Details.Totals == nil {
		return 0
	}
	n, err := strconv.ParseInt(t.Details.Totals.Total, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

type adjustmentData struct {
	ID             string  `json:"id"`
	Action         string  `json:"action"`
	Status         string  `json:"status"`
	Type           string  `json:"type"`
	TransactionID  string  `json:"transaction_id"`
	SubscriptionID *string `json:"subscription_id"`
	CustomerID     string  `json:"customer_id"`
}

// Paddle's subscription statuses, in its (American) spelling.
var validStatus = map[string]bool{"trialing": true, "active": true, "past_due": true, "paused": true, "canceled": true}

// errBadPayload is a payload that is not the event it claims to be; no retry heals it.
var errBadPayload = fmt.Errorf("paddle payload: %w", webhook.ErrPermanent)

// decode reads the envelope and its data into dst.
func decode(payload []byte, dst any) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(payload, &env); err != nil {
		return env, fmt.Errorf("%w: %w", errBadPayload, err)
	}
	if err := json.Unmarshal(env.Data, dst); err != nil {
		return env, fmt.Errorf("%w: data: %w", errBadPayload, err)
	}
	if env.OccurredAt.IsZero() {
		return env, fmt.Errorf("%w: no occurred_at", errBadPayload)
	}
	return env, nil
}

func (s subscriptionData) validate() error {
	switch {
	case s.ID == "":
		return fmt.Errorf("%w: subscription without id", errBadPayload)
	case !validStatus[s.Status]:
		return fmt.Errorf("%w: unknown subscription status %q", errBadPayload, s.Status)
	case len(s.Items) == 0 || s.Items[0].Price.ID == "":
		return fmt.Errorf("%w: subscription %s has no price", errBadPayload, s.ID)
	}
	return nil
}

func priceOf(items []item) string {
	if len(items) == 0 {
		return ""
	}
	return items[0].Price.ID
}

// grantJobID keys a period grant by subscription and period start, so subscription.created and a renewal's
// transaction.completed can never grant the same period twice, whatever arrives first or twice.
func grantJobID(subscriptionID string, start time.Time) string {
	return "grant:" + subscriptionID + ":" + start.UTC().Format(time.RFC3339)
}
