package billing_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// canceledUntil delivers created + canceled for sub_1 whose paid period ends at end.
func (f *fixture) canceledUntil(t *testing.T, end time.Time) {
	t.Helper()
	c := f.created(t0, "evt_c")
	c.end = end
	f.mustDeliver(t, c.payload())
	f.mustDeliver(t, sub{eventID: "evt_x", eventType: "subscription.canceled", status: "canceled", occurred: t0.Add(time.Hour),
		start: p1Start, end: end}.payload())
}

func (f *fixture) expiredAudits(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM audit_logs WHERE action = 'subscription.expired'`).Scan(&n).Error)
	return n
}

// Eight expiry runs at once (eight instances' hourly jobs) downgrade the user once, with one audit row.
func TestExpireCanceledConcurrentRunsDowngradeOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	end := time.Now().Add(time.Hour)
	f.canceledUntil(t, end)

	const runs = 8
	var total atomic.Int64
	var start, done sync.WaitGroup
	start.Add(1)
	for range runs {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			n, err := f.svc.ExpireCanceled(context.Background(), end.Add(time.Second))
			if err == nil {
				total.Add(int64(n))
			}
		}()
	}
	start.Done()
	done.Wait()
	require.EqualValues(t, 1, total.Load())
	require.Equal(t, 1, f.expiredAudits(t))
	require.Equal(t, "free", f.state(t).UserTier)
}

// A soft-deleted user is not downgraded while deleted; if they restore the account, the next run does it.
func TestExpireCanceledWaitsForADeletedUser(t *testing.T) {
	t.Parallel()
	f := setup(t)
	end := time.Now().Add(time.Hour)
	f.canceledUntil(t, end)
	require.NoError(t, f.db.Exec(`UPDATE users SET deleted_at = now() WHERE clerk_user_id = 'user_1'`).Error)

	n, err := f.svc.ExpireCanceled(context.Background(), end.Add(time.Second))
	require.NoError(t, err)
	require.Zero(t, n)
	require.NoError(t, f.db.Exec(`UPDATE users SET deleted_at = NULL WHERE clerk_user_id = 'user_1'`).Error)
	n, err = f.svc.ExpireCanceled(context.Background(), end.Add(time.Second))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, "free", f.state(t).UserTier)
}
