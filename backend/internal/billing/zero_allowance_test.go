package billing_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// A paid tier that grants no credits (monthly_credits 0 or left out: a plan sold for its features) is a
// plan like any other: its subscription is recorded and its user gets the tier, and neither its events
// nor the monthly-grants job fail on the empty allowance (a grant of 0 is no grant: the ledger refuses it).
func TestATierWithoutMonthlyCreditsGrantsNothingAndFailsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), "tiers:\n  - name: free\n    signup_credits: 25\n  - name: pro\n    paddle_price_ids: [pri_pro_monthly]\n    monthly_credits: 0\n")
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	f.mustDeliver(t, renewal("evt_r2", p1End, p1End.AddDate(0, 1, 0)))
	require.Equal(t, state{Status: "active", Tier: "pro", UserTier: "pro"}, f.state(t))
	require.Zero(t, f.grantMonths(t, p1End.AddDate(0, 0, 3)).Grants)
	require.Zero(t, f.state(t).Grants)
}
