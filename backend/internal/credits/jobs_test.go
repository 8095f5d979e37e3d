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

func actorFor(user uuid.UUID) audit.Actor {
	return audit.Actor{UserID: user, ClerkUserID: "user_" + user.String(), IP: "192.0.2.1"}
}

func TestSpendAuditsNewDeductsOnly(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	a := actorFor(newUser(t, svc, d, 10))
	first, bal, created, err := svc.Spend(ctx, a, 4, "job-1", "summarise", 0)
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 6, bal)
	again, bal, created, err := svc.Spend(ctx, a, 4, "job-1", "summarise", 0)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, first, again)
	require.Equal(t, 6, bal)
	_, _, _, err = svc.Spend(ctx, a, 7, "job-2", "", 0)
	require.ErrorIs(t, err, credits.ErrInsufficient)
	require.ErrorContains(t, err, "spend credits: ")
	_, _, _, err = svc.Spend(ctx, a, 1<<40, "job-3", "", 0)
	require.ErrorIs(t, err, credits.ErrInvalidAmount, "beyond the INTEGER column")

	var row struct{ Actor, ResourceID, Details, IP string }
	require.NoError(t, d.Gorm.Raw(`SELECT actor, resource_id, details::text, host(ip) AS ip FROM audit_logs
		WHERE action = ?`, credits.ActionSpent).Scan(&row).Error)
	require.Equal(t, "user:"+a.ClerkUserID, row.Actor)
	require.Equal(t, "job-1", row.ResourceID)
	require.JSONEq(t, `{"amount":4,"movement_id":"`+first.ID.String()+`"}`, row.Details, "no free-text reason")
	require.Equal(t, "192.0.2.1", row.IP)
	require.Equal(t, 1, audits(t, d, credits.ActionSpent))
}

// The hole "users reporting their own job outcomes" (docs/security.md): each spend carries its own orphan window, the
// service default when it names none, and a window outside one second to one day is refused before anything is written.
// A retry keeps the original deadline.
func TestSpendSetsTheOrphanWindow(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	svc := credits.New(d.Gorm, credits.Config{DefaultExpiresIn: time.Hour})
	ctx := context.Background()
	a := actorFor(newUser(t, svc, d, 100))
	window := func(m credits.Movement) time.Duration {
		require.NotNil(t, m.ExpiresAt)
		return m.ExpiresAt.Sub(m.CreatedAt)
	}
	for _, tc := range []struct {
		job       string
		expiresIn time.Duration
		want      time.Duration
	}{
		{"default", 0, time.Hour},
		{"shortest", time.Second, time.Second},
		{"longest", 24 * time.Hour, 24 * time.Hour},
	} {
		m, _, created, err := svc.Spend(ctx, a, 1, tc.job, "", tc.expiresIn)
		require.NoError(t, err, tc.job)
		require.True(t, created, tc.job)
		require.Equal(t, tc.want, window(m), tc.job)
	}
	again, _, created, err := svc.Spend(ctx, a, 1, "shortest", "", time.Hour)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, time.Second, window(again), "a retry returns the original deadline")
	for _, bad := range []time.Duration{-time.Second, time.Second - 1, 24*time.Hour + 1} {
		_, _, _, err := svc.Spend(ctx, a, 1, "bad", "", bad)
		require.ErrorIs(t, err, credits.ErrInvalidExpiry, bad.String())
	}
	require.Equal(t, 0, rows(t, d, "bad"))

	m, _, _, err := credits.New(d.Gorm, credits.Config{}).Spend(ctx, a, 1, "zero-config", "", 0)
	require.NoError(t, err)
	require.Equal(t, credits.DefaultExpiresIn, window(m), "the zero Config uses the 15-minute default")
	require.Equal(t, 15*time.Minute, credits.DefaultExpiresIn)

	g, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: a.UserID, Amount: 1, Key: "grant-1"})
	require.NoError(t, err)
	require.Nil(t, g.ExpiresAt, "only deducts expire")
}

// jobSetup gives a user with 10 credits, 4 of them spent on job-1.
func jobSetup(t *testing.T) (*credits.Service, *pgtest.DB, audit.Actor) {
	t.Helper()
	svc, d := setup(t)
	a := actorFor(newUser(t, svc, d, 10))
	_, _, _, err := svc.Spend(context.Background(), a, 4, "job-1", "", 0)
	require.NoError(t, err)
	return svc, d, a
}

func TestCompleteJobOnce(t *testing.T) {
	t.Parallel()
	svc, d, a := jobSetup(t)
	ctx := context.Background()
	for i := range 3 {
		c, err := svc.CompleteJob(ctx, a, "job-1")
		require.NoError(t, err)
		require.Equal(t, credits.Completion{Created: i == 0}, c)
	}
	_, _, _, err := svc.FailJob(ctx, a, "job-1", "")
	require.ErrorIs(t, err, credits.ErrJobFinished)
	require.Equal(t, 1, audits(t, d, credits.ActionJobCompleted))
	require.Equal(t, 0, audits(t, d, credits.ActionJobFailed))
	require.Equal(t, 6, balance(t, svc, a.UserID))
	require.Equal(t, credits.ReconcileResult{}, reconcile(t, svc, 0), "a completed job is no orphan")
}

func TestFailJobRefundsOnce(t *testing.T) {
	t.Parallel()
	svc, d, a := jobSetup(t)
	ctx := context.Background()
	var first credits.Movement
	for i := range 3 {
		refund, bal, created, err := svc.FailJob(ctx, a, "job-1", "provider 503")
		require.NoError(t, err)
		require.Equal(t, i == 0, created)
		require.Equal(t, 10, bal)
		if i == 0 {
			first = refund
		}
		require.Equal(t, first, refund)
	}
	require.Equal(t, credits.KindRefund, first.Kind)
	require.Equal(t, 4, first.Delta)
	_, err := svc.CompleteJob(ctx, a, "job-1")
	require.ErrorIs(t, err, credits.ErrJobFinished)
	require.Equal(t, 1, audits(t, d, credits.ActionJobFailed))
	require.Equal(t, 3, rows(t, d, "job-1"), "deduct, refund, task_failed")
}

// After the reconciler returned an orphan's credits, a late failure report records the failure but
// refunds nothing, and a completion after that failure is refused.
func TestLateFailureAfterReconcilerRefund(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	a := actorFor(newUser(t, svc, d, 10))
	oldDeduct(t, d, a.UserID, 4, "job-1", time.Hour)
	require.Equal(t, credits.ReconcileResult{Scanned: 1, Refunded: 1}, reconcile(t, svc, 0))

	refund, bal, created, err := svc.FailJob(ctx, a, "job-1", "late")
	require.NoError(t, err)
	require.True(t, created, "the failure itself is new")
	require.Equal(t, credits.KindReconcilerRefund, refund.Kind)
	require.Equal(t, 10, bal)
	_, _, created, err = svc.FailJob(ctx, a, "job-1", "late")
	require.NoError(t, err)
	require.False(t, created)
	_, err = svc.CompleteJob(ctx, a, "job-1")
	require.ErrorIs(t, err, credits.ErrJobFinished)
	require.Equal(t, 1, audits(t, d, credits.ActionJobFailed))
	require.Equal(t, 0, count(t, d, credits.KindRefund))
	require.Equal(t, 0, count(t, d, credits.KindRecharge))
}

// The reconciler refunded a job as orphaned, then its worker reports it completed: the work was
// delivered, so the job is charged again, once, even when the balance no longer covers it (the balance
// goes below zero and spends are refused until it is covered). A re-spend of the refunded job id is
// job_finished, never an idempotent "already paid".
func TestCompletionAfterReconcilerRefundChargesAgain(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	a := actorFor(newUser(t, svc, d, 10))
	oldDeduct(t, d, a.UserID, 4, "job-1", time.Hour)
	require.Equal(t, credits.ReconcileResult{Scanned: 1, Refunded: 1}, reconcile(t, svc, 0))
	require.Equal(t, 10, balance(t, svc, a.UserID))

	_, _, _, err := svc.Spend(ctx, a, 4, "job-1", "", 0)
	require.ErrorIs(t, err, credits.ErrJobFinished, "a refunded job is over: spending it again is no free retry")
	// Meanwhile the user spends what the refund gave back.
	_, bal, _, err := svc.Spend(ctx, a, 8, "job-2", "", 0)
	require.NoError(t, err)
	require.Equal(t, 2, bal)

	for i := range 3 {
		c, err := svc.CompleteJob(ctx, a, "job-1")
		require.NoError(t, err)
		if i == 0 {
			require.Equal(t, credits.Completion{Created: true, Recharged: 4}, c)
		} else {
			require.Equal(t, credits.Completion{}, c, "a repeat charges nothing more")
		}
	}
	require.Equal(t, -2, balance(t, svc, a.UserID), "the delivered work is owed, below zero if need be")
	require.Equal(t, 1, count(t, d, credits.KindRecharge))
	_, _, _, err = svc.Spend(ctx, a, 1, "job-3", "", 0)
	require.ErrorIs(t, err, credits.ErrInsufficient, "no spend until the debt is covered")
	_, _, _, err = svc.FailJob(ctx, a, "job-1", "")
	require.ErrorIs(t, err, credits.ErrJobFinished)
	_, _, _, err = svc.Spend(ctx, a, 4, "job-1", "", 0)
	require.ErrorIs(t, err, credits.ErrJobFinished)
	require.Equal(t, credits.ReconcileResult{}, reconcile(t, svc, 0), "a completed job is no orphan")
}

// A job refunded by its failure is over too: spending its id again is job_finished.
func TestSpendOfAFailedJobIsFinished(t *testing.T) {
	t.Parallel()
	svc, _, a := jobSetup(t)
	ctx := context.Background()
	_, _, _, err := svc.FailJob(ctx, a, "job-1", "")
	require.NoError(t, err)
	_, _, _, err = svc.Spend(ctx, a, 4, "job-1", "", 0)
	require.ErrorIs(t, err, credits.ErrJobFinished)
	require.Equal(t, 10, balance(t, svc, a.UserID))
}

// Another user's job and a job with no deduct look the same: ErrNoDeduct, never ErrJobConflict.
func TestJobLifecycleHidesOtherUsersJobs(t *testing.T) {
	t.Parallel()
	svc, d, alice := jobSetup(t)
	ctx := context.Background()
	bob := actorFor(newUser(t, svc, d, 10))
	for _, job := range []string{"job-1", "no-such-job"} {
		_, err := svc.CompleteJob(ctx, bob, job)
		require.ErrorIs(t, err, credits.ErrNoDeduct, job)
		_, _, _, err = svc.FailJob(ctx, bob, job, "")
		require.ErrorIs(t, err, credits.ErrNoDeduct, job)
	}
	_, err := svc.CompleteJob(ctx, bob, "")
	require.ErrorIs(t, err, credits.ErrInvalidJobID)
	require.Equal(t, 1, rows(t, d, "job-1"), "alice's deduct only")
	require.Equal(t, 6, balance(t, svc, alice.UserID))
	require.Equal(t, 10, balance(t, svc, bob.UserID))
}

// Completions and failures of one job racing: the first to take the user lock decides the outcome, and
// every report of the other outcome gets ErrJobFinished. Several rounds, as a lucky interleaving can hide
// a missing lock.
func TestConcurrentCompleteAndFailAgree(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	for round := range 10 {
		a := actorFor(newUser(t, svc, d, 10))
		_, _, _, err := svc.Spend(context.Background(), a, 4, fmt.Sprintf("job-%d", round), "", 0)
		require.NoError(t, err)
		errs := together(10, func(i int) error {
			if i%2 == 0 {
				_, err := svc.CompleteJob(context.Background(), a, fmt.Sprintf("job-%d", round))
				return err
			}
			_, _, _, err := svc.FailJob(context.Background(), a, fmt.Sprintf("job-%d", round), "")
			return err
		})
		ok := [2]int{} // successes of complete, fail
		for i, err := range errs {
			if err == nil {
				ok[i%2]++
				continue
			}
			require.ErrorIs(t, err, credits.ErrJobFinished, "round %d", round)
		}
		require.Contains(t, [][2]int{{5, 0}, {0, 5}}, ok, "round %d: one outcome wins", round)
		want := map[bool]int{true: 6, false: 10}[ok[0] == 5]
		require.Equal(t, want, balance(t, svc, a.UserID), "round %d", round)
	}
	require.Equal(t, 10, audits(t, d, credits.ActionJobCompleted)+audits(t, d, credits.ActionJobFailed), "one per job")
}
