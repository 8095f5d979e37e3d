package credits_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// orphanAfter is the window oldDeduct gives its rows: the old fixed one, as 00010 backfilled it.
const orphanAfter = 5 * time.Minute

// oldDeduct writes a deduct as a spend age ago with a 5-minute window wrote it.
func oldDeduct(t *testing.T, d *pgtest.DB, user uuid.UUID, amount int, jobID string, age time.Duration) {
	t.Helper()
	deductAt(t, d, user, amount, jobID, -age, orphanAfter-age)
}

// deductAt spends for a job as the ledger would have at now+created, with the deadline now+expires.
func deductAt(t *testing.T, d *pgtest.DB, user uuid.UUID, amount int, jobID string, created, expires time.Duration) {
	t.Helper()
	now := time.Now()
	svc := credits.New(d.Gorm, credits.Config{DefaultExpiresIn: expires - created}).At(now.Add(created))
	_, created2, err := svc.Deduct(context.Background(), user, amount, jobID, "")
	require.NoError(t, err)
	require.True(t, created2)
}

// count counts ledger rows of a kind.
func count(t *testing.T, d *pgtest.DB, kind string) int {
	t.Helper()
	var n int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM credit_transactions WHERE kind = ?`, kind).Scan(&n).Error)
	return n
}

// audits counts audit rows of an action.
func audits(t *testing.T, d *pgtest.DB, action string) int {
	t.Helper()
	var n int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM audit_logs WHERE action = ?`, action).Scan(&n).Error)
	return n
}

func reconcile(t *testing.T, svc *credits.Service, limit int) credits.ReconcileResult {
	t.Helper()
	res, err := svc.ReconcileOrphans(context.Background(), time.Now(), limit)
	require.NoError(t, err)
	return res
}

func TestReconcileRefundsOnlyOldOrphans(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 10)
	oldDeduct(t, d, user, 2, "orphan-1", 10*time.Minute)
	oldDeduct(t, d, user, 3, "orphan-2", orphanAfter+time.Second)
	oldDeduct(t, d, user, 1, "young", orphanAfter-30*time.Second)
	oldDeduct(t, d, user, 1, "completed", time.Hour)
	oldDeduct(t, d, user, 1, "failed", time.Hour)
	_, _, err := svc.MarkCompleted(ctx, user, "completed")
	require.NoError(t, err)
	_, _, err = svc.MarkFailed(ctx, user, "failed", "")
	require.NoError(t, err)
	require.Equal(t, 3, balance(t, svc, user))

	require.Equal(t, credits.ReconcileResult{Scanned: 2, Refunded: 2}, reconcile(t, svc, 200))
	var refunded []string
	require.NoError(t, d.Gorm.Raw(`SELECT job_id || ':' || delta FROM credit_transactions WHERE kind = 'reconciler_refund'
		ORDER BY job_id`).Scan(&refunded).Error)
	require.Equal(t, []string{"orphan-1:2", "orphan-2:3"}, refunded)
	require.Equal(t, 8, balance(t, svc, user))
	require.Equal(t, 2, audits(t, d, credits.ActionReconciled))

	require.Equal(t, credits.ReconcileResult{}, reconcile(t, svc, 200), "a second pass finds nothing")
	require.Equal(t, 8, balance(t, svc, user))
}

// The hole "users reporting their own job outcomes" (docs/security.md): the deadline is the job's own, not its age. A
// day-long job created an hour ago is left alone; a job whose one-second window has passed is refunded at once; another
// user's outcome for the same job id does not protect a deduct.
func TestReconcilerHonoursEachJobsDeadline(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	alice, bob := newUser(t, svc, d, 10), newUser(t, svc, d, 10)
	deductAt(t, d, alice, 1, "long-running", -time.Hour, 23*time.Hour)
	deductAt(t, d, alice, 2, "short", -2*time.Second, -time.Second)
	deductAt(t, d, alice, 3, "shared-id", -time.Minute, -time.Second)
	deductAt(t, d, bob, 4, "shared-id", -time.Minute, time.Hour)
	_, _, err := svc.MarkCompleted(ctx, bob, "shared-id")
	require.NoError(t, err)

	require.Equal(t, credits.ReconcileResult{Scanned: 2, Refunded: 2}, reconcile(t, svc, 0))
	var refunded []string
	require.NoError(t, d.Gorm.Raw(`SELECT job_id || ':' || delta FROM credit_transactions WHERE kind = 'reconciler_refund'
		ORDER BY job_id`).Scan(&refunded).Error)
	require.Equal(t, []string{"shared-id:3", "short:2"}, refunded, "alice's shared-id despite bob's completion")
	require.Equal(t, 9, balance(t, svc, alice))
	require.Equal(t, 6, balance(t, svc, bob))
}

func TestReconcileLimitBoundsTheBatch(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 10)
	for i := range 5 {
		oldDeduct(t, d, user, 1, fmt.Sprintf("orphan-%d", i), time.Hour-time.Duration(i)*time.Minute)
	}
	for _, want := range []int{2, 2, 1, 0} {
		require.Equal(t, credits.ReconcileResult{Scanned: want, Refunded: want}, reconcile(t, svc, 2))
	}
	var order []string
	require.NoError(t, d.Gorm.Raw(`SELECT job_id FROM credit_transactions WHERE kind = 'reconciler_refund'
		ORDER BY created_at, job_id`).Scan(&order).Error)
	require.Equal(t, []string{"orphan-0", "orphan-1", "orphan-2", "orphan-3", "orphan-4"}, order, "earliest deadline first")
	require.Equal(t, 10, balance(t, svc, user))
}

// A completion that commits after the scan but before the reconciler holds the user lock must win. The
// test holds the user's lock (the balance row) itself, waits until the reconciler (having scanned) queues behind it, then completes.
func TestReconcileSkipsLifecycleRowsThatRaceTheScan(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 10)
	oldDeduct(t, d, user, 2, "job-raced", time.Hour)
	oldDeduct(t, d, user, 3, "job-orphan", 30*time.Minute)

	tx := d.Gorm.Begin()
	t.Cleanup(func() { tx.Rollback() }) // a no-op after the commit below; releases the lock if the test fails first
	require.NoError(t, tx.Exec(`SELECT 1 FROM credit_balances WHERE user_id = ? FOR NO KEY UPDATE`, user).Error)
	type outcome struct {
		res credits.ReconcileResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := svc.ReconcileOrphans(ctx, time.Now(), 200)
		done <- outcome{res, err}
	}()
	require.Eventually(t, func() bool {
		var waiting int
		require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting).Error)
		return waiting == 1
	}, 10*time.Second, 5*time.Millisecond, "the reconciler queues on the user lock")
	_, _, err := svc.WithTx(tx).MarkCompleted(ctx, user, "job-raced")
	require.NoError(t, err)
	require.NoError(t, tx.Commit().Error)

	got := <-done
	require.NoError(t, got.err)
	require.Equal(t, credits.ReconcileResult{Scanned: 2, Refunded: 1, SkippedLifecycle: 1}, got.res)
	require.Equal(t, 0, count(t, d, credits.KindRefund))
	require.Equal(t, 8, balance(t, svc, user), "only job-orphan's 3 credits came back")
}

// together runs fn in n goroutines released at once by a start barrier, and returns their errors.
func together(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i := range n {
		done.Go(func() {
			ready.Done()
			<-start
			errs[i] = fn(i)
		})
	}
	ready.Wait()
	close(start)
	done.Wait()
	return errs
}
