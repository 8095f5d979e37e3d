package billing

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestDefaultTiers(t *testing.T) {
	t.Parallel()
	tiers, err := LoadTiers("")
	require.NoError(t, err)
	require.Empty(t, tiers.Warnings())
	require.Equal(t, "free", tiers.Free().Name)
	require.Equal(t, 25, tiers.Free().SignupCredits)
	pro, err := tiers.ByPrice("pri_pro_yearly")
	require.NoError(t, err)
	require.Equal(t, 1000, pro.MonthlyCredits)
	require.Equal(t, 1, pro.Rank)
	require.Equal(t, []string{"pri_pro_monthly", "pri_pro_yearly"}, pro.PaddlePriceIDs)
	yearly, ok := tiers.Price("pri_pro_yearly")
	require.True(t, ok)
	require.Equal(t, Price{ID: "pri_pro_yearly", Tier: "pro", Amount: 15000, HasAmount: true, Currency: "USD",
		Interval: "year", Frequency: 1}, yearly)
	_, err = tiers.ByPrice("pri_nope")
	require.ErrorIs(t, err, ErrUnknownPrice)
}

// The tiers file's full shape: optional amounts beside paddle_price_ids, a per-tier rate limit, seats.
func TestTiersPricesRateLimitsAndSeats(t *testing.T) {
	t.Parallel()
	tiers, err := ParseTiers([]byte(`tiers:
  - name: free
  - name: pro
    paddle_price_ids: [pri_pro_monthly]
    monthly_credits: 1000
    rate_limit_per_minute: 600
    prices:
      pri_pro_monthly: {amount: 1500, currency: USD, interval: month}
      pri_pro_yearly: {amount: 15000, currency: USD, interval: year}
      pri_pro_eur:
  - name: team
    paddle_price_ids: [pri_team_monthly]
    monthly_credits: 500
    credits_per_seat: true
`))
	require.NoError(t, err)
	pro, _ := tiers.ByName("pro")
	require.Equal(t, 600, pro.RateLimitPerMinute)
	require.Equal(t, []string{"pri_pro_monthly", "pri_pro_eur", "pri_pro_yearly"}, pro.PaddlePriceIDs,
		"listed prices first, then the other keys of prices, sorted")
	for _, id := range pro.PaddlePriceIDs {
		tier, err := tiers.ByPrice(id)
		require.NoError(t, err)
		require.Equal(t, "pro", tier.Name)
	}
	eur, ok := tiers.Price("pri_pro_eur")
	require.True(t, ok)
	require.False(t, eur.HasAmount, "a price without an amount is unpriced")
	team, _ := tiers.ByName("team")
	require.Equal(t, 2, team.Rank)
	require.Equal(t, 5000, team.Allowance(10))
	require.Equal(t, 500, team.Allowance(0))
	require.Equal(t, 1000, pro.Allowance(10), "without credits_per_seat the allowance is granted once")
	require.Equal(t, []string{"free", "pro", "team"}, []string{tiers.List()[0].Name, tiers.List()[1].Name, tiers.List()[2].Name})
}

func TestPeriodCreditsIsDeprecatedButRead(t *testing.T) {
	t.Parallel()
	tiers, err := ParseTiers([]byte("tiers:\n  - name: free\n  - name: pro\n    paddle_price_ids: [a]\n    period_credits: 700\n"))
	require.NoError(t, err)
	pro, _ := tiers.ByName("pro")
	require.Equal(t, 700, pro.MonthlyCredits)
	require.Len(t, tiers.Warnings(), 1)
	require.Contains(t, tiers.Warnings()[0], "pro: period_credits is deprecated")

	_, err = ParseTiers([]byte("tiers:\n  - name: free\n  - name: pro\n    paddle_price_ids: [a]\n    period_credits: 700\n    monthly_credits: 700\n"))
	require.ErrorContains(t, err, "pro: set monthly_credits only")
}

// The rollover and credit pack keys: each spelling the file accepts, and what it means.
func TestTiersRolloverAndPacks(t *testing.T) {
	t.Parallel()
	tiers, err := ParseTiers([]byte(`tiers:
  - name: free
  - name: a
    paddle_price_ids: [pa]
  - name: b
    paddle_price_ids: [pb]
    rollover: none
  - name: c
    paddle_price_ids: [pc]
    rollover: all
  - name: d
    paddle_price_ids: [pd]
    rollover: {max: 250}
credit_packs:
  - {price_id: p500, credits: 500, expires_in: 8760h}
  - {price_id: p100, credits: 100}
`))
	require.NoError(t, err)
	for name, want := range map[string]Rollover{"a": {}, "b": {Expires: true}, "c": {Expires: true, Max: math.MaxInt32},
		"d": {Expires: true, Max: 250}} {
		tier, _ := tiers.ByName(name)
		require.Equal(t, want, tier.Rollover, name)
	}
	require.Equal(t, []Pack{{PriceID: "p500", Credits: 500, ExpiresIn: 8760 * time.Hour}, {PriceID: "p100", Credits: 100}}, tiers.Packs())
	_, ok := tiers.Pack("pa")
	require.False(t, ok, "a plan's price is not a pack")
}

func TestTiersValidation(t *testing.T) {
	t.Parallel()
	const head = "tiers:\n  - name: free\n  - name: pro\n"
	for name, tc := range map[string]struct{ doc, want string }{
		"no free tier":     {"tiers:\n  - name: pro\n    paddle_price_ids: [a]\n", "exactly one tier without prices"},
		"two free tiers":   {"tiers:\n  - name: free\n  - name: hobby\n", "exactly one tier without prices"},
		"prices only":      {"tiers:\n  - name: free\n  - name: hobby\n    prices: {a: }\n  - name: x\n", "exactly one tier without prices"},
		"duplicate name":   {head + "    paddle_price_ids: [a]\n  - name: pro\n    paddle_price_ids: [b]\n", `duplicate tier name "pro"`},
		"duplicate price":  {head + "    paddle_price_ids: [a]\n  - name: team\n    paddle_price_ids: [a]\n", `price "a" listed by both pro and team`},
		"price in prices":  {head + "    paddle_price_ids: [a]\n  - name: team\n    prices: {a: }\n", `price "a" listed by both pro and team`},
		"listed twice":     {head + "    paddle_price_ids: [a, a]\n", `pro: paddle_price_ids: "a" listed twice`},
		"negative":         {"tiers:\n  - name: free\n    signup_credits: -1\n", "free: signup_credits"},
		"negative monthly": {head + "    paddle_price_ids: [a]\n    monthly_credits: -5\n", "pro: monthly_credits"},
		"negative limit":   {head + "    paddle_price_ids: [a]\n    rate_limit_per_minute: -1\n", "pro: rate_limit_per_minute"},
		"unnamed":          {"tiers:\n  - name: free\n  - paddle_price_ids: [a]\n", "tier #2 has no name"},
		"long name":        {"tiers:\n  - name: free\n  - name: abcdefghijklmnopqrstuvwxyz0123456\n    paddle_price_ids: [a]\n", "at most 32"},
		"misspelt key":     {head + "    paddle_price_ids: [a]\n    monthly_credit: 5\n", "monthly_credit"},
		"amount alone":     {head + "    prices: {a: {amount: 100}}\n", "pro: prices.a: an amount needs its currency and interval"},
		"negative amount":  {head + "    prices: {a: {amount: -1, currency: USD, interval: month}}\n", "pro: prices.a: amount"},
		"bad currency":     {head + "    prices: {a: {amount: 1, currency: usd, interval: month}}\n", "pro: prices.a: currency"},
		"bad interval":     {head + "    prices: {a: {amount: 1, currency: USD, interval: monthly}}\n", "pro: prices.a: interval"},
		"not yaml":         {"tiers: [", "tiers:"},
		"rollover word":    {head + "    paddle_price_ids: [a]\n    rollover: some\n", `pro: rollover: want none, all or {max: N}, have "some"`},
		"rollover key":     {head + "    paddle_price_ids: [a]\n    rollover: {cap: 5}\n", "pro: rollover: want none, all or {max: N}"},
		"rollover max":     {head + "    paddle_price_ids: [a]\n    rollover: {max: -1}\n", "pro: rollover: max: want 0.."},
		"pack no price":    {head + "    paddle_price_ids: [a]\ncredit_packs: [{credits: 5}]\n", "credit_packs #1: price_id: required"},
		"pack no credits":  {head + "    paddle_price_ids: [a]\ncredit_packs: [{price_id: p}]\n", "credit_packs.p: credits: want 1.."},
		"pack is a plan":   {head + "    paddle_price_ids: [a]\ncredit_packs: [{price_id: a, credits: 5}]\n", "credit_packs.a: the price is pro's plan"},
		"pack twice":       {head + "    paddle_price_ids: [a]\ncredit_packs: [{price_id: p, credits: 5}, {price_id: p, credits: 6}]\n", "credit_packs.p: listed twice"},
		"pack expiry":      {head + "    paddle_price_ids: [a]\ncredit_packs: [{price_id: p, credits: 5, expires_in: 1y}]\n", `credit_packs.p: expires_in: want a positive duration`},
		"pack misspelt":    {head + "    paddle_price_ids: [a]\ncredit_packs: [{price_id: p, credit: 5}]\n", "credit"},
	} {
		_, err := ParseTiers([]byte(tc.doc))
		require.ErrorContains(t, err, tc.want, name)
	}
	_, err := LoadTiers("/nonexistent/tiers.yaml")
	require.Error(t, err)
}
