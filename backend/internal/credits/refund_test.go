package credits_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

func TestRefundOnce(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 10)
	_, _, err := svc.Deduct(ctx, user, 4, "job-1", "")
	require.NoError(t, err)

	first, created, err := svc.Refund(ctx, user, "job-1", "first")
	require.NoError(t, err)
	require.True(t, created)
	for range 2 {
		again, created, err := svc.Refund(ctx, user, "job-1", "again")
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, first, again)
	}
	require.Equal(t, 2, rows(t, d, "job-1"), "one deduct, one refund")
	require.Equal(t, 10, balance(t, svc, user))
}

func TestMarkFailedRefundsOnce(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 10)
	_, _, err := svc.Deduct(ctx, user, 6, "job-1", "")
	require.NoError(t, err)

	for i := range 3 {
		r, created, err := svc.MarkFailed(ctx, user, "job-1", "provider 503")
		require.NoError(t, err)
		require.Equal(t, i == 0, created)
		require.Equal(t, credits.KindRefund, r.Kind)
		require.Equal(t, 6, r.Delta)
	}
	var kinds []string
	require.NoError(t, d.Gorm.Raw(`SELECT kind FROM credit_transactions WHERE job_id = 'job-1' ORDER BY kind`).Scan(&kinds).Error)
	require.Equal(t, []string{credits.KindDeduct, credits.KindRefund, credits.KindTaskFailed}, kinds)
	require.Equal(t, 10, balance(t, svc, user))
}

func TestMarkCompletedIsIdempotent(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 0)
	first, created, err := svc.MarkCompleted(context.Background(), user, "job-1")
	require.NoError(t, err)
	require.True(t, created)
	again, created, err := svc.MarkCompleted(context.Background(), user, "job-1")
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, first, again)
	require.Equal(t, 1, rows(t, d, "job-1"))
}

func TestRefundWithoutDeduct(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 10)
	_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 5, Key: "job-1", Reason: "a grant is not a deduct"})
	require.NoError(t, err)

	_, created, err := svc.Refund(ctx, user, "job-1", "")
	require.ErrorIs(t, err, credits.ErrNoDeduct)
	require.False(t, created)
	_, _, err = svc.MarkFailed(ctx, user, "job-1", "")
	require.ErrorIs(t, err, credits.ErrNoDeduct)
	require.ErrorContains(t, err, "mark task failed: ")
	require.Equal(t, 1, rows(t, d, "job-1"), "no refund and no task_failed marker")
	require.Equal(t, 15, balance(t, svc, user))
}

// A deduct the reconciler already refunded must not be refunded a second time by a late failure report.
func TestRefundAfterReconcilerRefund(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 10)
	_, _, err := svc.Deduct(ctx, user, 4, "job-1", "")
	require.NoError(t, err)
	res, err := svc.ReconcileOrphans(ctx, time.Now().Add(time.Hour), 0)
	require.NoError(t, err)
	require.Equal(t, 1, res.Refunded)

	r, created, err := svc.MarkFailed(ctx, user, "job-1", "late")
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, credits.KindReconcilerRefund, r.Kind)
	require.Equal(t, 10, balance(t, svc, user))
}
