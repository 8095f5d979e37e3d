// Package billing is the policy for money: pricing tiers, what each Paddle event means for our mirror of
// subscriptions, period credit grants, checkout signing and the subscription management the API offers.
// Paddle is the source of truth; our tables change only when its webhooks say so.
package billing

import (
	_ "embed"
	"errors"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// Tier is one pricing tier.
type Tier struct {
	Name           string   `yaml:"name"`
	PaddlePriceIDs []string `yaml:"paddle_price_ids"`
	// SignupCredits is granted once on signup; only meaningful on the free tier.
	SignupCredits int `yaml:"signup_credits"`
	// PeriodCredits is granted once per paid billing period.
	PeriodCredits int `yaml:"period_credits"`
}

// Tiers is a validated tier table.
type Tiers struct {
	list    []Tier
	byName  map[string]Tier
	byPrice map[string]Tier
	free    Tier
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
	return ParseTiers(data)
}

// ParseTiers validates a tiers document: unique names and price ids, non-negative credits, and exactly one
// tier without prices (the free tier).
func ParseTiers(data []byte) (*Tiers, error) {
	var doc struct {
		Tiers []Tier `yaml:"tiers"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("tiers: %w", err)
	}
	t := &Tiers{list: doc.Tiers, byName: map[string]Tier{}, byPrice: map[string]Tier{}}
	frees := 0
	for _, tier := range doc.Tiers {
		switch {
		case tier.Name == "":
			return nil, errors.New("tiers: a tier has no name")
		case tier.SignupCredits < 0 || tier.PeriodCredits < 0:
			return nil, fmt.Errorf("tiers: %s: credits cannot be negative", tier.Name)
		}
		if _, dup := t.byName[tier.Name]; dup {
			return nil, fmt.Errorf("tiers: duplicate tier name %q", tier.Name)
		}
		t.byName[tier.Name] = tier
		if len(tier.PaddlePriceIDs) == 0 {
			frees++
			t.free = tier
		}
		for _, p := range tier.PaddlePriceIDs {
			if other, dup := t.byPrice[p]; dup {
				return nil, fmt.Errorf("tiers: price %q listed by both %s and %s", p, other.Name, tier.Name)
			}
			t.byPrice[p] = tier
		}
	}
	if frees != 1 {
		return nil, fmt.Errorf("tiers: want exactly one tier without paddle_price_ids (the free tier), have %d", frees)
	}
	return t, nil
}

// Free is the tier without prices, every user's starting tier.
func (t *Tiers) Free() Tier { return t.free }

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

// IsFree reports whether tier is the free tier.
func (t *Tiers) IsFree(tier Tier) bool { return tier.Name == t.free.Name }
