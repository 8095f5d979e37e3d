// Package billing is the policy for money: pricing tiers, what each Paddle event means for our mirror of
// subscriptions, monthly credit grants, checkout signing and the subscription management the API offers.
// Paddle is the source of truth; our tables change only when its webhooks say so.
package billing

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"slices"
)

// Tier is one pricing tier.
type Tier struct {
	Name string
	// Rank is the tier's position in the tiers file (0 first): a later tier is a higher one. It decides
	// which tier wins when one subscription carries items of two tiers.
	Rank int
	// PaddlePriceIDs are the tier's prices in order: paddle_price_ids as listed, then any further keys of
	// prices, sorted. The first is the checkout default.
	PaddlePriceIDs []string
	// SignupCredits is granted once on signup; only meaningful on the free tier.
	SignupCredits int
	// MonthlyCredits is granted once per month of a paid subscription, whatever its billing interval.
	MonthlyCredits int
	// CreditsPerSeat multiplies MonthlyCredits by the tiered item's quantity.
	CreditsPerSeat bool
	// RateLimitPerMinute is the tier's API budget per user; 0 leaves the service-wide RATE_LIMIT_PER_MINUTE.
	RateLimitPerMinute int
	// Rollover is what the monthly allowance does at the end of its month.
	Rollover Rollover
	// Features the tier grants, by name (features.go); a name absent here is disabled for the tier.
	Features map[string]Feature
	// LowBalance: a credit balance falling below it notifies the user once per usage month (0: never).
	LowBalance int
}

// Allowance is the tier's monthly credits for a tiered item of quantity seats: MonthlyCredits, times the
// quantity when the tier grants per seat. A quantity below 1 counts as one seat. (An allowance beyond the
// ledger's INTEGER is refused by the ledger, which fails the delivery loudly rather than granting less.)
func (t Tier) Allowance(quantity int) int {
	if !t.CreditsPerSeat || quantity <= 1 {
		return t.MonthlyCredits
	}
	return t.MonthlyCredits * quantity
}

// HasPrice reports whether priceID is one of the tier's prices.
func (t Tier) HasPrice(priceID string) bool { return slices.Contains(t.PaddlePriceIDs, priceID) }

// Price is what the tiers file says about one Paddle price: its tier and, optionally, its amount.
type Price struct {
	ID   string
	Tier string
	// Amount is in the currency's minor units (1500 = 15.00 USD); meaningful only when HasAmount.
	Amount    int64
	HasAmount bool
	Currency  string // ISO 4217, upper case; set with an amount
	Interval  string // day, week, month or year; "" when the file does not say
	Frequency int    // intervals per billing cycle, at least 1 when Interval is set
}

// Tiers is a validated tier table.
type Tiers struct {
	list     []Tier
	byName   map[string]Tier
	byPrice  map[string]Tier
	prices   map[string]Price
	free     Tier
	packs    map[string]Pack
	packList []Pack
	warnings []string
	features []string          // every feature name some tier declares
	kinds    map[string]string // and its kind
}

//go:embed tiers.yaml
var defaultTiers []byte

// ErrUnknownPrice is a Paddle price id no tier lists: a handler error, so the delivery fails and is retried
// by Paddle, and fixing the tiers file heals it.
var ErrUnknownPrice = errors.New("unknown paddle price id")

// LoadTiers reads the tiers file at path, or the embedded default when path is "".
func LoadTiers(path string) (*Tiers, error) {
	data := defaultTiers
	if path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("tiers: %w", err)
		}
	}
	t, err := ParseTiers(data)
	if err != nil && path != "" {
		return nil, fmt.Errorf("%s: %w", path, err) // the boot error names the file, then the tier and key
	}
	return t, err
}

// Free is the tier without prices, every user's starting tier.
func (t *Tiers) Free() Tier { return t.free }

// List returns the tiers in file order (lowest rank first).
func (t *Tiers) List() []Tier { return append([]Tier(nil), t.list...) }

// Warnings are what the file does that still works but should change (a deprecated key); the app logs
// them once at boot.
func (t *Tiers) Warnings() []string { return append([]string(nil), t.warnings...) }

// ByName looks a tier up by name.
func (t *Tiers) ByName(name string) (Tier, bool) {
	tier, ok := t.byName[name]
	return tier, ok
}

// ByPrice maps a Paddle price id to its tier; an unknown price is ErrUnknownPrice.
func (t *Tiers) ByPrice(priceID string) (Tier, error) {
	tier, ok := t.byPrice[priceID]
	if !ok {
		return Tier{}, fmt.Errorf("%w: %q (add it to the tiers file)", ErrUnknownPrice, priceID)
	}
	return tier, nil
}

// Price looks up what the tiers file says about a price; ok is false for a price no tier lists.
func (t *Tiers) Price(priceID string) (Price, bool) {
	p, ok := t.prices[priceID]
	return p, ok
}

// IsFree reports whether tier is the free tier.
func (t *Tiers) IsFree(tier Tier) bool { return tier.Name == t.free.Name }
