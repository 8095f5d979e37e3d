package billing_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// signedAs makes e the subscription subID of another user, signed for them.
func (f *fixture) signedAs(e event, subID, clerk, mail string) event {
	return e.set("event_id", "evt_"+subID).set("data.id", subID).set("data.custom_data.clerk_user_id", clerk).
		set("data.custom_data.email", mail).set("data.custom_data.checkout_sig", f.signer.Sign(clerk, mail, sampleT0))
}

// MRR comes from the amounts customers pay, per currency and normalised to a month: recurring items only
// (the one-time setup fee is not revenue), a country's override when the subscription is billed in its
// currency, the tiers file's amount only for an item whose payload had none.
func TestRevenueFromRealAmounts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers+`    prices:
      `+priTeamMonth+`: {amount: 3000, currency: USD, interval: month}
`)
	s := f.samples(t)
	// Yearly Team, 10 seats at 300.00 + 2 storage add-ons at 120.00, a year: 3240.00/12 = 270.00 a month.
	f.mustDeliver(t, s.yearly.body())
	// The same plan billed in EUR: the Team seats at the EUR override (55.00), storage at its base USD price.
	f.mustDeliver(t, f.signedAs(s.yearly.clone(), "sub_eur", "user_eur", "eur@example.com").
		set("data.currency_code", "EUR").set("data.discount", nil).body())
	// A subscription from before items were stored: its one item has no amount, the tiers file has one.
	f.mustDeliver(t, f.signedAs(s.teamMonthly.clone(), "sub_old", "user_old", "old@example.com").body())
	require.NoError(t, f.db.Exec(`UPDATE subscription_items SET unit_amount = NULL, currency = NULL, billing_interval = NULL,
		billing_frequency = NULL WHERE subscription_id = (SELECT id FROM subscriptions WHERE paddle_subscription_id = 'sub_old')`).Error)
	// A trial is not revenue.
	f.mustDeliver(t, f.signedAs(s.monthly.clone(), "sub_trial", "user_trial", "trial@example.com").
		set("data.status", "trialing").body())

	rev, err := f.svc.RevenueTx(context.Background(), f.db)
	require.NoError(t, err)
	require.Equal(t, billing.Revenue{
		MRR: map[string]int64{
			// 27000 + storage of sub_eur (2000) + sub_old's 3 Team seats at 3000 from the tiers file.
			"USD": 27000 + 2000 + 9000,
			"EUR": 4583, // 10 × 5500 / 12
		},
		Subscriptions: 3, Unpriced: 1, Discounted: 1, FromTiersFile: 1,
		ByTier: map[string]billing.TierRevenue{
			"team": {MRR: map[string]int64{"USD": 27000 + 2000 + 9000, "EUR": 4583}, Subscriptions: 3, Unpriced: 1},
		},
	}, rev, "sub_old's storage add-on has no amount anywhere: unpriced, left out")
}
