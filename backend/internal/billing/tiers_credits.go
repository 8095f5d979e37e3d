package billing

import (
	"errors"
	"fmt"
	"math"
	"time"

	"go.yaml.in/yaml/v3"
)

// Rollover is what a tier's unspent monthly allowance does at the end of its month (docs/billing.md,
// *Credits*). The zero value is a tier without the key: its allowance never expires, not even when the
// subscription ends (the meaning tiers files had before the key existed).
type Rollover struct {
	// Expires is false for a tier without the key. With it, each month's allowance expires at the end of
	// its month and carries at most Max into the next month (0 for none, MaxInt32 for all), and what is
	// left of it expires at once when the subscription drops to free or its period is refunded in full.
	Expires bool
	Max     int
}

// String is the tiers file's spelling of r.
func (r Rollover) String() string {
	switch {
	case !r.Expires:
		return "never expires"
	case r.Max == 0:
		return "none"
	case r.Max == math.MaxInt32:
		return "all"
	}
	return fmt.Sprintf("{max: %d}", r.Max)
}

// rawNode keeps a key's YAML as it is, for a value that may be a scalar or a mapping.
type rawNode struct{ yaml.Node }

// UnmarshalYAML stores the node.
func (r *rawNode) UnmarshalYAML(n *yaml.Node) error {
	r.Node = *n
	return nil
}

// parseRollover reads `rollover: none | all | {max: N}`.
func parseRollover(n *yaml.Node) (Rollover, error) {
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case "none":
			return Rollover{Expires: true}, nil
		case "all":
			return Rollover{Expires: true, Max: math.MaxInt32}, nil
		}
		return Rollover{}, fmt.Errorf("want none, all or {max: N}, have %q", n.Value)
	}
	var m struct {
		Max *int `yaml:"max"`
	}
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[0].Value != "max" || n.Decode(&m) != nil {
		return Rollover{}, errors.New("want none, all or {max: N}")
	}
	if m.Max == nil || *m.Max < 0 || *m.Max > math.MaxInt32 {
		return Rollover{}, fmt.Errorf("max: want 0..%d", math.MaxInt32)
	}
	return Rollover{Expires: true, Max: *m.Max}, nil
}

// Pack is a credit pack: a one-time Paddle price whose completed transaction grants Credits once, as
// purchased credits that expire ExpiresIn after the purchase (0: never).
type Pack struct {
	PriceID   string
	Credits   int
	ExpiresIn time.Duration
}

// packDoc is one entry of credit_packs.
type packDoc struct {
	PriceID   string `yaml:"price_id"`
	Credits   int    `yaml:"credits"`
	ExpiresIn string `yaml:"expires_in"`
}

// pack validates one credit pack (n counts from 1, for the message).
func (d packDoc) pack(n int) (Pack, error) {
	name := fmt.Sprintf("credit_packs #%d", n)
	if d.PriceID != "" {
		name = "credit_packs." + d.PriceID
	}
	switch {
	case d.PriceID == "":
		return Pack{}, fmt.Errorf("%s: price_id: required", name)
	case d.Credits <= 0 || d.Credits > math.MaxInt32:
		return Pack{}, fmt.Errorf("%s: credits: want 1..%d", name, math.MaxInt32)
	}
	p := Pack{PriceID: d.PriceID, Credits: d.Credits}
	if d.ExpiresIn != "" {
		ttl, err := time.ParseDuration(d.ExpiresIn)
		if err != nil || ttl <= 0 {
			return Pack{}, fmt.Errorf("%s: expires_in: want a positive duration such as 8760h, have %q", name, d.ExpiresIn)
		}
		p.ExpiresIn = ttl
	}
	return p, nil
}

// Pack looks a credit pack up by its Paddle price id.
func (t *Tiers) Pack(priceID string) (Pack, bool) {
	p, ok := t.packs[priceID]
	return p, ok
}

// Packs returns the credit packs in file order.
func (t *Tiers) Packs() []Pack { return append([]Pack(nil), t.packList...) }
