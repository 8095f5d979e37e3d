package credits_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// ledgerWithEveryStory is a user whose ledger holds every kind of movement the checks look at: an expiring
// grant, a job completed, a job failed, a job refunded as orphaned, one completed after that refund (a
// recharge), and one still running. verify passes on it.
func ledgerWithEveryStory(t *testing.T) (*credits.Service, *pgtest.DB, uuid.UUID) {
	t.Helper()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 100)
	grant(t, svc, user, 50, "expiring", credits.CategoryPromotional, at(time.Now().Add(24*time.Hour)), 0)
	a := actorFor(user)
	for _, job := range []string{"done", "failed", "orphan", "late", "running"} {
		_, _, _, err := svc.Spend(ctx, a, 10, job, "", time.Minute)
		require.NoError(t, err)
	}
	_, err := svc.CompleteJob(ctx, a, "done")
	require.NoError(t, err)
	_, _, _, err = svc.FailJob(ctx, a, "failed", "boom")
	require.NoError(t, err)
	// The reconciler, two minutes on, refunds the three jobs nobody reported; then "late" reports in.
	_, err = svc.ReconcileOrphans(ctx, time.Now().Add(2*time.Minute), 0)
	require.NoError(t, err)
	_, err = svc.CompleteJob(ctx, a, "late")
	require.NoError(t, err)
	_, _, _, err = svc.Spend(ctx, a, 10, "running", "", time.Hour)
	require.ErrorIs(t, err, credits.ErrJobFinished, "running was refunded with the others")
	_, _, _, err = svc.Spend(ctx, a, 5, "open", "", time.Hour)
	require.NoError(t, err)
	mustVerify(t, d)
	return svc, d, user
}

// fired runs every ledger check and returns the names of those that found something.
func fired(t *testing.T, d *pgtest.DB, scope verify.Scope) []string {
	t.Helper()
	rep, err := verify.Run(context.Background(), d.Gorm, credits.Checks(), scope)
	require.NoError(t, err)
	var out []string
	for _, r := range rep.Results {
		if r.Count > 0 {
			require.NotEmpty(t, r.Violations[0].Subject, r.Check.Name)
			require.NotEmpty(t, r.Violations[0].Detail, r.Check.Name)
			out = append(out, r.Check.Name)
		}
	}
	return out
}

// Each ledger check finds the difference planted behind the ledger's back (and the checks it implies).
func TestLedgerChecksFindPlantedViolations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		plant string
		want  []string
	}{
		{"a balance row off by one", `UPDATE credit_balances SET balance = balance + 1 WHERE user_id = @user`,
			[]string{"ledger.balance_is_sum_of_movements", "ledger.balance_is_sum_of_buckets"}},
		{"a bucket that lost a credit", `UPDATE credit_buckets SET remaining = remaining - 1 WHERE grant_id =
			(SELECT id FROM credit_transactions WHERE user_id = @user AND job_id = 'expiring')`,
			[]string{"ledger.balance_is_sum_of_buckets", "ledger.bucket_is_sum_of_allocations"}},
		{"an allocation deleted", `DELETE FROM credit_allocations WHERE id = (SELECT max(a.id) FROM credit_allocations a
			JOIN credit_transactions t ON t.id = a.movement_id WHERE t.user_id = @user AND t.job_id = 'open')`,
			[]string{"ledger.bucket_is_sum_of_allocations", "ledger.movement_is_sum_of_allocations"}},
		{"a bucket larger than its grant", `UPDATE credit_buckets SET amount = amount + 5 WHERE grant_id =
			(SELECT id FROM credit_transactions WHERE user_id = @user AND job_id = 'expiring')`,
			[]string{"ledger.bucket_amount_is_its_grant"}},
		{"an expired bucket still holding credits", `UPDATE credit_buckets SET expired_at = now() WHERE grant_id =
			(SELECT id FROM credit_transactions WHERE user_id = @user AND job_id = 'expiring')`,
			[]string{"ledger.expired_bucket_is_empty"}},
		{"next_expiry_at after a bucket's expiry", `UPDATE credit_balances SET next_expiry_at = NULL WHERE user_id = @user`,
			[]string{"ledger.next_expiry_is_not_late"}},
		{"a completed job marked failed too", `INSERT INTO credit_transactions (user_id, delta, kind, job_id) VALUES (@user, 0, 'task_failed', 'done')`,
			[]string{"ledger.job_lifecycle"}},
		{"an outcome without a deduct", `INSERT INTO credit_transactions (user_id, delta, kind, job_id) VALUES (@user, 0, 'task_completed', 'ghost')`,
			[]string{"ledger.job_lifecycle"}},
		{"a failure whose credits never came back", `INSERT INTO credit_transactions (user_id, delta, kind, job_id) VALUES (@user, 0, 'task_failed', 'open')`,
			[]string{"ledger.job_lifecycle"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, d, user := ledgerWithEveryStory(t)
			require.NoError(t, d.Gorm.Exec(tc.plant, map[string]any{"user": user}).Error)
			require.Equal(t, tc.want, fired(t, d, verify.Scope{}))
			require.Equal(t, tc.want, fired(t, d, verify.Scope{UserID: &user}), "the user's own checks find it")
			other := uuid.New()
			require.Empty(t, fired(t, d, verify.Scope{UserID: &other}), "another user's checks do not")
		})
	}
}

// A deduct nobody reported, an hour past its deadline, is an orphan the reconciler has not refunded: the
// job lifecycle check names it (the reconciler is behind or stopped). Before that hour it is not reported.
func TestLedgerCheckFindsAnOrphanTheReconcilerMissed(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	for _, ago := range []time.Duration{30 * time.Minute, 3 * time.Hour} {
		past := credits.New(d.Gorm, credits.Config{Now: func() time.Time { return time.Now().Add(-ago) }})
		user := newUser(t, past, d, 10)
		_, _, _, err := past.Spend(context.Background(), actorFor(user), 4, "job-"+ago.String(), "", time.Minute)
		require.NoError(t, err)
	}
	rep, err := verify.Run(context.Background(), d.Gorm, credits.Checks(), verify.Scope{})
	require.NoError(t, err)
	i := slices.IndexFunc(rep.Results, func(r verify.Result) bool { return r.Check.Name == "ledger.job_lifecycle" })
	require.Equal(t, 1, rep.Results[i].Count, rep.String())
	require.Contains(t, rep.Results[i].Violations[0].Subject, "job-3h0m0s")
	require.Contains(t, rep.Results[i].Violations[0].Detail, "the reconciler is behind")
	require.Equal(t, 1, rep.Violations())
}
