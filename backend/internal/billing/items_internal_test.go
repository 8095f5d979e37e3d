package billing

import (
	"testing"

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
