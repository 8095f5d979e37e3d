package billing

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Months are counted from the period's start in UTC, the day clamped to the month's last day, each from
// the start (not chained): Jan 31 gives Feb 28, then Mar 31.
func TestGrantCalendar(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return v
	}
	jan31 := at("2027-01-31T10:00:00Z")
	for k, want := range []string{"2027-01-31T10:00:00Z", "2027-02-28T10:00:00Z", "2027-03-31T10:00:00Z",
		"2027-04-30T10:00:00Z", "2027-05-31T10:00:00Z"} {
		require.Equal(t, at(want), monthStart(jan31, k), k)
	}
	require.Equal(t, at("2028-02-29T10:00:00Z"), monthStart(at("2027-12-31T10:00:00Z"), 2), "leap year, over the year end")
	require.Equal(t, at("2026-11-01T09:00:00Z"), monthStart(at("2026-11-01T10:00:00+01:00"), 0), "UTC")

	for _, tc := range []struct {
		at   string
		want int
	}{
		{"2027-01-01T00:00:00Z", 0}, // before the period: month 0
		{"2027-01-31T10:00:00Z", 0},
		{"2027-02-28T09:59:59Z", 0},
		{"2027-02-28T10:00:00Z", 1},
		{"2027-03-30T23:00:00Z", 1},
		{"2027-03-31T10:00:00Z", 2},
		{"2028-01-31T09:00:00Z", 11},
	} {
		require.Equal(t, tc.want, monthIndex(jan31, at(tc.at)), tc.at)
	}
	p := period{StartsAt: jan31, EndsAt: at("2028-01-31T10:00:00Z")}
	m, ok := monthOf(p, at("2027-03-05T00:00:00Z"))
	require.True(t, ok)
	require.Equal(t, at("2027-02-28T10:00:00Z"), m)
	_, ok = monthOf(p, p.EndsAt)
	require.False(t, ok, "the period is over")

	require.Equal(t, "grant:sub_01hv8x29kz0t586xy6zn1a62ny:2027-02-28T10:00:00Z", grantJobID("sub_01hv8x29kz0t586xy6zn1a62ny", m))
	long := topUpJobID(strings.Repeat("s", maxSubscriptionID), m, strings.Repeat("t", maxTierName), maxQuantity)
	require.LessOrEqual(t, len(long), 128, "the longest top-up key fits the ledger")
}

// An item's amount in the subscription's currency: its base price, else the one override in that
// currency; overrides that disagree (the payload names no country) leave the base price in its currency.
func TestItemUnitPrice(t *testing.T) {
	t.Parallel()
	it := item{Price: price{UnitPrice: &money{Amount: "1500", CurrencyCode: "USD"}}}
	override := func(country, amount, cur string) priceOverride {
		return priceOverride{CountryCodes: []string{country}, UnitPrice: money{Amount: amount, CurrencyCode: cur}}
	}
	check := func(currency string, wantAmount int64, wantCur string) {
		t.Helper()
		n, cur, ok := it.unitPrice(currency)
		require.True(t, ok)
		require.Equal(t, wantAmount, n)
		require.Equal(t, wantCur, cur)
	}
	check("USD", 1500, "USD")
	check("EUR", 1500, "USD") // no EUR override: Paddle converts; the base price stands
	it.Price.UnitPriceOverrides = append(it.Price.UnitPriceOverrides, override("DE", "1400", "EUR"), override("FR", "1400", "EUR"))
	check("EUR", 1400, "EUR")
	it.Price.UnitPriceOverrides = append(it.Price.UnitPriceOverrides, override("IE", "1300", "EUR"))
	check("EUR", 1500, "USD") // ambiguous
	_, _, ok := item{Price: price{UnitPrice: &money{Amount: "12.50", CurrencyCode: "USD"}}}.unitPrice("USD")
	require.False(t, ok, "amounts are integers in minor units")
}
