package billing

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// tierDoc is one tier as the file spells it.
type tierDoc struct {
	Name           string               `yaml:"name"`
	PaddlePriceIDs []string             `yaml:"paddle_price_ids"`
	Prices         map[string]*priceDoc `yaml:"prices"`
	SignupCredits  int                  `yaml:"signup_credits"`
	MonthlyCredits *int                 `yaml:"monthly_credits"`
	// PeriodCredits is the deprecated name of MonthlyCredits, still read (with a warning).
	PeriodCredits      *int     `yaml:"period_credits"`
	CreditsPerSeat     bool     `yaml:"credits_per_seat"`
	RateLimitPerMinute int      `yaml:"rate_limit_per_minute"`
	Rollover           *rawNode `yaml:"rollover"`
	// Features and LowBalance are parsed in features.go.
	Features   yaml.Node `yaml:"features"`
	LowBalance int       `yaml:"low_balance"`
}

// priceDoc is one entry of a tier's prices; every field is optional, but an amount needs its currency and
// interval.
type priceDoc struct {
	Amount    *int64 `yaml:"amount"`
	Currency  string `yaml:"currency"`
	Interval  string `yaml:"interval"`
	Frequency int    `yaml:"frequency"`
}

// maxTierName is the width of subscriptions.tier and users.current_tier.
const maxTierName = 32

var (
	currencyCode   = regexp.MustCompile(`^[A-Z]{3}$`)
	validIntervals = []string{"day", "week", "month", "year"}
)

// ParseTiers validates a tiers document: known keys only, unique names and price ids, non-negative
// credits, well-formed prices, and exactly one tier without prices (the free tier). Errors name the tier
// and the field.
func ParseTiers(data []byte) (*Tiers, error) {
	var doc struct {
		Tiers       []tierDoc `yaml:"tiers"`
		CreditPacks []packDoc `yaml:"credit_packs"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	// A misspelt key (monthly_credit) would otherwise grant nothing, silently.
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("tiers: %w", err)
	}
	t := &Tiers{byName: map[string]Tier{}, byPrice: map[string]Tier{}, prices: map[string]Price{}, packs: map[string]Pack{}}
	frees := 0
	for rank, d := range doc.Tiers {
		tier, warnings, err := d.tier(rank)
		if err != nil {
			return nil, fmt.Errorf("tiers: %w", err)
		}
		if _, dup := t.byName[tier.Name]; dup {
			return nil, fmt.Errorf("tiers: duplicate tier name %q", tier.Name)
		}
		t.warnings = append(t.warnings, warnings...)
		t.byName[tier.Name] = tier
		t.list = append(t.list, tier)
		if len(tier.PaddlePriceIDs) == 0 {
			frees++
			t.free = tier
		}
		for _, id := range tier.PaddlePriceIDs {
			if other, dup := t.byPrice[id]; dup {
				return nil, fmt.Errorf("tiers: price %q listed by both %s and %s", id, other.Name, tier.Name)
			}
			t.byPrice[id] = tier
			t.prices[id] = d.price(id, tier.Name)
		}
	}
	for i, d := range doc.CreditPacks {
		p, err := d.pack(i + 1)
		if err != nil {
			return nil, fmt.Errorf("tiers: %w", err)
		}
		if tier, dup := t.byPrice[p.PriceID]; dup {
			return nil, fmt.Errorf("tiers: credit_packs.%s: the price is %s's plan; a pack needs a one-time price of its own", p.PriceID, tier.Name)
		}
		if _, dup := t.packs[p.PriceID]; dup {
			return nil, fmt.Errorf("tiers: credit_packs.%s: listed twice", p.PriceID)
		}
		t.packs[p.PriceID] = p
		t.packList = append(t.packList, p)
	}
	if frees != 1 {
		return nil, fmt.Errorf("tiers: want exactly one tier without prices (the free tier), have %d", frees)
	}
	if err := t.checkFeatures(); err != nil {
		return nil, fmt.Errorf("tiers: %w", err)
	}
	if t.free.MonthlyCredits > 0 {
		t.warnings = append(t.warnings, fmt.Sprintf("tiers: %s: monthly_credits has no effect on the free tier "+
			"(no subscription grants it; signup_credits is its one-time grant)", t.free.Name))
	}
	return t, nil
}

// tier validates one tier and returns it with its warnings.
func (d tierDoc) tier(rank int) (Tier, []string, error) {
	var warnings []string
	switch {
	case d.Name == "":
		return Tier{}, nil, fmt.Errorf("tier #%d has no name", rank+1)
	case utf8.RuneCountInString(d.Name) > maxTierName || !utf8.ValidString(d.Name):
		return Tier{}, nil, fmt.Errorf("%s: name: at most %d characters", d.Name, maxTierName)
	case d.SignupCredits < 0:
		return Tier{}, nil, fmt.Errorf("%s: signup_credits: cannot be negative", d.Name)
	case d.RateLimitPerMinute < 0:
		return Tier{}, nil, fmt.Errorf("%s: rate_limit_per_minute: cannot be negative (0 keeps RATE_LIMIT_PER_MINUTE)", d.Name)
	case d.LowBalance < 0:
		return Tier{}, nil, fmt.Errorf("%s: low_balance: cannot be negative (0: no low-balance notice)", d.Name)
	case d.MonthlyCredits != nil && d.PeriodCredits != nil:
		return Tier{}, nil, fmt.Errorf("%s: set monthly_credits only (period_credits is its deprecated name)", d.Name)
	}
	monthly := d.MonthlyCredits
	if d.PeriodCredits != nil {
		monthly = d.PeriodCredits
		warnings = append(warnings, fmt.Sprintf("tiers: %s: period_credits is deprecated, rename it to monthly_credits; "+
			"it is granted every month now, on yearly plans too", d.Name))
	}
	var err error
	tier := Tier{Name: d.Name, Rank: rank, SignupCredits: d.SignupCredits, CreditsPerSeat: d.CreditsPerSeat,
		RateLimitPerMinute: d.RateLimitPerMinute, LowBalance: d.LowBalance}
	if d.Rollover != nil {
		if tier.Rollover, err = parseRollover(&d.Rollover.Node); err != nil {
			return Tier{}, nil, fmt.Errorf("%s: rollover: %w", d.Name, err)
		}
	}
	features, err := parseFeatures(&d.Features)
	if err != nil {
		return Tier{}, nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	tier.Features = features
	if monthly != nil {
		if *monthly < 0 || *monthly > math.MaxInt32 {
			return Tier{}, nil, fmt.Errorf("%s: monthly_credits: want 0..%d", d.Name, math.MaxInt32)
		}
		tier.MonthlyCredits = *monthly
	}
	ids, err := d.priceIDs()
	if err != nil {
		return Tier{}, nil, err
	}
	tier.PaddlePriceIDs = ids
	return tier, warnings, nil
}

// priceIDs is paddle_price_ids in order, then the keys of prices not listed there, sorted; each price
// entry validated.
func (d tierDoc) priceIDs() ([]string, error) {
	ids := []string{}
	for _, id := range d.PaddlePriceIDs {
		if id == "" {
			return nil, fmt.Errorf("%s: paddle_price_ids: empty price id", d.Name)
		}
		if slices.Contains(ids, id) {
			return nil, fmt.Errorf("%s: paddle_price_ids: %q listed twice", d.Name, id)
		}
		ids = append(ids, id)
	}
	var extra []string
	for id, p := range d.Prices {
		if id == "" {
			return nil, fmt.Errorf("%s: prices: empty price id", d.Name)
		}
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("%s: prices.%s: %w", d.Name, id, err)
		}
		if !slices.Contains(ids, id) {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	return append(ids, extra...), nil
}

func (p *priceDoc) validate() error {
	if p == nil {
		return nil // "pri_x:" or "pri_x: {}": listed, without an amount
	}
	switch {
	case p.Amount != nil && *p.Amount < 0:
		return errors.New("amount: cannot be negative")
	case p.Amount != nil && (p.Currency == "" || p.Interval == ""):
		return errors.New("an amount needs its currency and interval")
	case p.Currency != "" && !currencyCode.MatchString(p.Currency):
		return fmt.Errorf("currency: %q is not an ISO 4217 code in upper case (USD)", p.Currency)
	case p.Interval != "" && !slices.Contains(validIntervals, p.Interval):
		return fmt.Errorf("interval: %q is not one of %v", p.Interval, validIntervals)
	case p.Frequency < 0:
		return errors.New("frequency: cannot be negative")
	}
	return nil
}

// price is the lookup entry of one of the tier's prices.
func (d tierDoc) price(id, tier string) Price {
	out := Price{ID: id, Tier: tier}
	if p := d.Prices[id]; p != nil {
		out.Currency, out.Interval, out.Frequency = p.Currency, p.Interval, p.Frequency
		if p.Amount != nil {
			out.Amount, out.HasAmount = *p.Amount, true
		}
		if out.Interval != "" && out.Frequency == 0 {
			out.Frequency = 1
		}
	}
	return out
}
