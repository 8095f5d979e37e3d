package billing

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// The plan is the item of the highest tier wherever it sits, and among items of that one tier the first:
// the others are named for the audit row. A later item of a lower or the same tier never takes the plan's
// place, so its quantity never becomes the subscription's seats.
func TestPlanIsTheFirstItemOfTheHighestTier(t *testing.T) {
	t.Parallel()
	tiers, err := LoadTiers("")
	require.NoError(t, err)
	it := func(priceID string, quantity int) item { return item{Price: price{ID: priceID}, Quantity: &quantity} }
	for _, tc := range []struct {
		name      string
		items     []item
		wantIndex int
		wantTier  string
		wantSeats int
		wantOther []string
	}{
		{"higher tier second", []item{it("pri_pro_monthly", 1), it("pri_team_monthly", 3)}, 1, "team", 3, []string{"pri_pro_monthly"}},
		{"higher tier first", []item{it("pri_team_monthly", 3), it("pri_pro_monthly", 1)}, 0, "team", 3, []string{"pri_pro_monthly"}},
		{"two prices of one tier", []item{it("pri_pro_monthly", 2), it("pri_pro_yearly", 5)}, 0, "pro", 2, []string{"pri_pro_yearly"}},
	} {
		p, err := tiers.planOf(tc.items)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.wantIndex, p.index, tc.name)
		require.Equal(t, tc.wantTier, p.tier.Name, tc.name)
		require.Equal(t, tc.wantSeats, p.quantity, tc.name)
		require.Equal(t, tc.wantOther, p.others, tc.name)
	}
}

// An item's unit price is stored only when it is an amount in minor units in a three-letter currency: an
// amount that does not parse is unpriced (NULL, not 0, which revenue would count as a free item), and a
// currency the column cannot hold is dropped rather than failing the delivery on every retry.
func TestItemRowsStoreOnlyAUsableUnitPrice(t *testing.T) {
	t.Parallel()
	it := func(amount, currency string) item {
		return item{Price: price{ID: "pri_x", UnitPrice: &money{Amount: amount, CurrencyCode: currency}}}
	}
	rows := itemRows(uuid.New(), []item{it("1500", "USD"), it("12.50", "USD"), it("1500", "EURO")}, 0, "")
	require.Len(t, rows, 3)
	require.NotNil(t, rows[0].UnitAmount)
	require.Equal(t, int64(1500), *rows[0].UnitAmount)
	require.Equal(t, "USD", *rows[0].Currency)
	for i, r := range rows[1:] {
		require.Nil(t, r.UnitAmount, "item %d", i+1)
		require.Nil(t, r.Currency, "item %d", i+1)
	}
}
