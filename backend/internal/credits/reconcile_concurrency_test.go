package credits_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// refundsPerJob fails unless every job in jobs has exactly one refund row of either kind.
func refundsPerJob(t *testing.T, d *pgtest.DB, jobs []string, msg string) {
	t.Helper()
	var rows []struct {
		JobID string
		N     int
	}
	require.NoError(t, d.Gorm.Raw(`SELECT job_id, count(*) AS n FROM credit_transactions
		WHERE kind IN ('refund', 'reconciler_refund') AND job_id IN ? GROUP BY job_id`, jobs).Scan(&rows).Error)
	got := make(map[string]int, len(rows))
	for _, r := range rows {
		got[r.JobID] = r.N
	}
	for _, job := range jobs {
		require.Equal(t, 1, got[job], "%s: refunds of %s", msg, job)
	}
}

// Five instances reconciling the same orphans at once refund each exactly once, and their counters add
// up. (Between reconcilers UNIQUE(user_id, job_id, kind) alone already guarantees the single refund.)
func TestConcurrentReconcilersRefundOnce(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	const reconcilers, perUser = 5, 10
	users := []uuid.UUID{newUser(t, svc, d, 100), newUser(t, svc, d, 100)}
	var jobs []string
	for i := range perUser {
		for u, user := range users {
			jobs = append(jobs, fmt.Sprintf("job-%d-%d", u, i))
			oldDeduct(t, d, user, i+1, jobs[len(jobs)-1], time.Hour)
		}
	}
	results := make([]credits.ReconcileResult, reconcilers)
	errs := together(reconcilers, func(i int) (err error) {
		results[i], err = svc.ReconcileOrphans(context.Background(), time.Now(), 200)
		return err
	})
	refunded := 0
	for i, res := range results {
		require.NoError(t, errs[i])
		require.Equal(t, res.Scanned, res.Refunded+res.SkippedLifecycle, "reconciler %d: %+v", i, res)
		refunded += res.Refunded
	}
	require.Equal(t, len(jobs), refunded, "the counters agree with the rows")
	require.Equal(t, len(jobs), count(t, d, credits.KindReconcilerRefund))
	refundsPerJob(t, d, jobs, "reconcilers")
	require.Equal(t, len(jobs), audits(t, d, credits.ActionReconciled))
	for _, user := range users {
		require.Equal(t, 100, balance(t, svc, user))
	}
}

// A reconciler and the job's own failure report racing on the same jobs refund each job once in total.
// Their refunds have different kinds, so no constraint catches a double refund here: only the user lock
// and the reconciler's re-check under it do. Several rounds make a lucky interleaving unlikely to hide a
// missing lock.
func TestReconcilerRacingFailureRefundsOnce(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	const rounds, jobsPerRound, reconcilers = 10, 10, 2
	for round := range rounds {
		user := newUser(t, svc, d, 100)
		actor := audit.Actor{UserID: user, ClerkUserID: "user_" + user.String()}
		jobs := make([]string, jobsPerRound)
		for i := range jobs {
			jobs[i] = fmt.Sprintf("job-%d-%d", round, i)
			oldDeduct(t, d, user, i+1, jobs[i], time.Hour)
		}
		results := make([]credits.ReconcileResult, reconcilers)
		errs := together(reconcilers+jobsPerRound, func(i int) (err error) {
			ctx := context.Background()
			switch {
			case i < reconcilers:
				results[i], err = svc.ReconcileOrphans(ctx, time.Now(), 200)
			case i%2 == 0: // the ledger call a worker makes
				_, _, err = svc.MarkFailed(ctx, user, jobs[i-reconcilers], "worker failed")
			default: // the API's
				_, _, _, err = svc.FailJob(ctx, actor, jobs[i-reconcilers], "worker failed")
			}
			return err
		})
		for _, err := range errs {
			require.NoError(t, err, "round %d", round)
		}
		refundsPerJob(t, d, jobs, fmt.Sprintf("round %d", round))
		require.Equal(t, 100, balance(t, svc, user), "round %d", round)
		require.Equal(t, jobsPerRound, count(t, d, credits.KindTaskFailed)-round*jobsPerRound, "round %d: every failure recorded", round)
	}
}
