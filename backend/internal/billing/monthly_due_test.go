package billing_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// One run grants every due subscription, however many batches that takes: 201 yearly subscriptions whose
// month 1 is due are two batches (200, then 1), and the 201st must not wait for the next hour's run. The
// run stops at the first batch that is not full.
func TestMonthlyGrantsRunGoesOnPastTheFirstBatch(t *testing.T) {
	t.Parallel()
	const subs = billing.MonthlyBatch + 1
	f := newFixture(t, pgtest.New(t), sampleTiers)
	start := sampleT0
	// Seeded through the webhook pipeline, eight at a time.
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range work {
				if _, err := f.deliver(t, f.yearlyOf(t, i, start).body()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for i := range subs {
		work <- i
	}
	close(work)
	wg.Wait()
	require.False(t, t.Failed())

	month1 := start.AddDate(0, 1, 0)
	rep := f.grantMonths(t, month1.Add(time.Hour))
	require.Equal(t, billing.MonthlyReport{Subscriptions: subs, Grants: subs, Credits: subs * 5000}, rep)
	require.Len(t, f.monthGrants(t, month1), subs, "every subscription's month 1, in one run")
	require.Equal(t, billing.MonthlyReport{}, f.grantMonths(t, month1.Add(2*time.Hour)), "nothing is due until month 2")
}

// A full refund of the transaction that paid a yearly subscription's period revokes access, and the job
// grants that period nothing more: no month 1, 2 or 3, however often it runs. A new payment (the next
// period's renewal) lifts the revocation and the job grants again from there.
func TestMonthlyGrantsSkipARefundedYearlySubscription(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	start := sampleT0
	yearly := f.yearlyFrom(t, start)
	f.mustDeliver(t, yearly.body())
	paidBy := yearly.get("data.transaction_id").(string)
	refund := adjustmentOf(sampleSub, paidBy, start.Add(24*time.Hour))
	f.mustDeliver(t, refund)
	require.Equal(t, "free", f.sampleState(t).UserTier, "the refund revoked access")

	for _, at := range []time.Time{start.AddDate(0, 1, 1), start.AddDate(0, 3, 1), start.AddDate(0, 11, 15)} {
		require.Equal(t, billing.MonthlyReport{}, f.grantMonths(t, at), "%s: a refunded period earns nothing", at)
	}
	require.Equal(t, []string{month(start, 0)}, f.grantsOf(t), "only month 0, granted before the refund")

	// The next year is paid: access is back, and so are the grants.
	next := start.AddDate(1, 0, 0)
	f.mustDeliver(t, yearly.as("evt_renewed", "subscription.updated", next.Add(time.Minute)).period(next, next.AddDate(1, 0, 0)).body())
	renewal := f.samples(t).renewal.clone().set("event_id", "evt_renewal_y2").set("occurred_at", next.Add(2*time.Minute)).
		set("data.id", "txn_year2").set("data.subscription_id", sampleSub).
		set("data.billing_period", map[string]any{"starts_at": next.Format(time.RFC3339), "ends_at": next.AddDate(1, 0, 0).Format(time.RFC3339)}).
		set("data.items", yearly.get("data.items"))
	f.mustDeliver(t, renewal.body())
	require.Equal(t, "team", f.sampleState(t).UserTier)
	require.Equal(t, 1, f.grantMonths(t, next.AddDate(0, 1, 1)).Grants, "month 1 of the paid year")
}
