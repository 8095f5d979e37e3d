package billing

import (
	"encoding/json"
	"fmt"
	"slices"
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

// money is Paddle's amount in minor units as a decimal string ("1500") with its currency.
type money struct {
	Amount       string `json:"amount"`
	CurrencyCode string `json:"currency_code"`
}

// minor parses the amount; ok is false when it is absent or not a non-negative integer.
func (m money) minor() (int64, bool) {
	n, err := strconv.ParseInt(m.Amount, 10, 64)
	return n, err == nil && n >= 0
}

type billingCycle struct {
	Interval  string `json:"interval"`
	Frequency int    `json:"frequency"`
}

// price is the catalog price an item carries (Paddle embeds the whole entity; these are the fields we use).
type price struct {
	ID        string `json:"id"`
	ProductID string `json:"product_id"`
	UnitPrice *money `json:"unit_price"`
	// UnitPriceOverrides are per-country prices; Paddle charges the customer's country's override.
	UnitPriceOverrides []priceOverride `json:"unit_price_overrides"`
	BillingCycle       *billingCycle   `json:"billing_cycle"` // null for a one-time price
}

type priceOverride struct {
	CountryCodes []string `json:"country_codes"`
	UnitPrice    money    `json:"unit_price"`
}

// item is one line of a subscription or a transaction: the plan, an add-on or a one-time charge. Paddle
// does not order them: the plan may come after an add-on.
type item struct {
	Price     price  `json:"price"`
	Quantity  *int   `json:"quantity"`
	Status    string `json:"status"`    // subscription items: active, inactive, trialing
	Recurring *bool  `json:"recurring"` // subscription items; absent counts as recurring
}

// quantity is the item's quantity, 1 when the payload omits it.
func (it item) quantity() int {
	if it.Quantity == nil {
		return 1
	}
	return *it.Quantity
}

func (it item) recurring() bool { return it.Recurring == nil || *it.Recurring }

// unitPrice is the item's unit price in currency (the subscription's): the price's own unit_price when it
// is in that currency, else the one amount its overrides give in that currency. The payload names no
// country, so overrides in that currency with different amounts stay ambiguous; then, as when Paddle
// converts the currency itself, the base price stands in its own currency. ok is false with no amount.
func (it item) unitPrice(currency string) (int64, string, bool) {
	base := it.Price.UnitPrice
	if base != nil && (currency == "" || base.CurrencyCode == currency) {
		n, ok := base.minor()
		return n, base.CurrencyCode, ok
	}
	if n, ok := it.overrideIn(currency); ok {
		return n, currency, true
	}
	if base == nil {
		return 0, "", false
	}
	n, ok := base.minor()
	return n, base.CurrencyCode, ok
}

// overrideIn is the one amount the price's overrides give in currency; ok is false for none or several.
func (it item) overrideIn(currency string) (int64, bool) {
	var amounts []int64
	for _, o := range it.Price.UnitPriceOverrides {
		if n, ok := o.UnitPrice.minor(); ok && o.UnitPrice.CurrencyCode == currency && !slices.Contains(amounts, n) {
			amounts = append(amounts, n)
		}
	}
	if len(amounts) != 1 {
		return 0, false
	}
	return amounts[0], true
}

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
	CurrencyCode         string          `json:"currency_code"`
	BillingCycle         *billingCycle   `json:"billing_cycle"`
	// Discount is {id, starts_at, ends_at}: Paddle's subscription payload names the discount but carries
	// no amount, so it is stored as sent and revenue figures note it.
	Discount   json.RawMessage `json:"discount"`
	Items      []item          `json:"items"`
	CustomData *customData     `json:"custom_data"`
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

// maxSubscriptionID bounds the id so every grant key fits the ledger's 128 characters (Paddle's ids are 30).
const maxSubscriptionID = 50

func (s subscriptionData) validate() error {
	switch {
	case s.ID == "" || len(s.ID) > maxSubscriptionID:
		return fmt.Errorf("%w: subscription id %q", errBadPayload, s.ID)
	case !validStatus[s.Status]:
		return fmt.Errorf("%w: unknown subscription status %q", errBadPayload, s.Status)
	case len(s.Items) == 0:
		return fmt.Errorf("%w: subscription %s has no items", errBadPayload, s.ID)
	}
	return validItems(s.Items)
}

func validItems(items []item) error {
	for i, it := range items {
		switch {
		case it.Price.ID == "" || len(it.Price.ID) > 64:
			return fmt.Errorf("%w: item %d price id %q", errBadPayload, i, it.Price.ID)
		case it.quantity() < 0 || it.quantity() > maxQuantity:
			return fmt.Errorf("%w: item %d quantity %d", errBadPayload, i, it.quantity())
		}
	}
	return nil
}

// maxQuantity is Paddle's largest item quantity.
const maxQuantity = 999_999_999
