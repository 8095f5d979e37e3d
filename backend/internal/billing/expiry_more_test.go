package billing_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// seedCanceled creates n yearly subscriptions (sub_<i> of user_<i>) through the pipeline and marks them
// canceled with their paid period ended at end, as the canceled snapshots would.
func (f *fixture) seedCanceled(t *testing.T, n int, end time.Time) {
	t.Helper()
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range work {
				if _, err := f.deliver(t, f.yearlyOf(t, i, sampleT0).body()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	require.False(t, t.Failed())
	require.NoError(t, f.db.Exec(`UPDATE subscriptions SET status = 'canceled', canceled_at = ?, current_period_end = ?`,
		end.Add(-time.Hour), end).Error)
}

func (f *fixture) onFree(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM users WHERE current_tier = 'free'`).Scan(&n).Error)
	return n
}

// One run of the expiry job downgrades every subscription whose paid period has ended, however many
// batches that is: 501 are two batches (500, then 1). Each is marked looked-at, so the next run reads none.
func TestExpireCanceledGoesOnPastAFullBatch(t *testing.T) {
	t.Parallel()
	const subs = billing.ExpiryBatch + 1
	f := newFixture(t, pgtest.New(t), sampleTiers)
	end := sampleT0.AddDate(0, 1, 0)
	f.seedCanceled(t, subs, end)

	n, err := f.svc.ExpireCanceled(context.Background(), end.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, subs, n)
	require.Equal(t, subs, f.onFree(t))
	var unmarked int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM subscriptions WHERE expired_at IS NULL`).Scan(&unmarked).Error)
	require.Zero(t, unmarked, "each subscription is looked at once")
}

// A soft-deleted user's subscription is left for later (a restore still gets the downgrade), and the run
// goes on to the subscriptions after it.
func TestExpireCanceledSkipsADeletedUserAndGoesOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	end := sampleT0.AddDate(0, 1, 0)
	f.seedCanceled(t, 2, end)
	// user_0's period ends first, so the run reads it first.
	require.NoError(t, f.db.Exec(`UPDATE subscriptions SET current_period_end = ? WHERE paddle_subscription_id = 'sub_0'`, end.Add(-time.Minute)).Error)
	require.NoError(t, f.db.Exec(`UPDATE users SET deleted_at = now() WHERE clerk_user_id = 'user_0'`).Error)

	n, err := f.svc.ExpireCanceled(context.Background(), end.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	var tiers []string
	require.NoError(t, f.db.Raw(`SELECT clerk_user_id || '=' || current_tier FROM users ORDER BY clerk_user_id`).Scan(&tiers).Error)
	require.Equal(t, []string{"user_0=team", "user_1=free"}, tiers)
}

// A full batch of nothing but deleted users' subscriptions ends the run: none of them is marked, so the
// next batch would read the same rows again, for ever. The run returns at once and says it downgraded none.
func TestExpireCanceledStopsAtAFullBatchOfDeletedUsers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	end := sampleT0.AddDate(0, 1, 0)
	f.seedCanceled(t, billing.ExpiryBatch, end)
	require.NoError(t, f.db.Exec(`UPDATE users SET deleted_at = now()`).Error)

	// A run that loops on the same batch would go on until this deadline and fail with it.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := f.svc.ExpireCanceled(ctx, end.Add(time.Minute))
	require.NoError(t, err)
	require.Zero(t, n)
	require.Zero(t, f.onFree(t))
}
