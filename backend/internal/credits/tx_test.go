package credits_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

func TestGrantRolledBackWithOuterTransaction(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	errAbort := errors.New("webhook handler failed")

	err := d.Gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		_, created, err := svc.WithTx(tx).Grant(ctx, credits.GrantSpec{UserID: user, Amount: 50, Key: "grant-1"})
		require.NoError(t, err)
		require.True(t, created)
		require.Equal(t, 50, balance(t, svc.WithTx(tx), user), "visible inside the transaction")
		return errAbort
	})
	require.ErrorIs(t, err, errAbort)
	require.Equal(t, 0, rows(t, d, "grant-1"))
	require.Equal(t, 0, balance(t, svc, user))
}

// Every sentinel from a bound call must leave the caller's transaction usable: the webhook still has to
// commit its claim and archive row after, say, a replayed grant or an insufficient balance.
func TestBoundCallsLeaveOuterTransactionUsable(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	alice, bob := newUser(t, svc, d, 5), newUser(t, svc, d, 0)
	_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: alice, Amount: 1, Key: "taken"})
	require.NoError(t, err)
	_, _, err = svc.Deduct(ctx, alice, 1, "spent", "")
	require.NoError(t, err)

	err = d.Gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		s := svc.WithTx(tx)
		_, _, err := s.Grant(ctx, credits.GrantSpec{UserID: alice, Amount: 1, Key: "taken"})
		require.NoError(t, err)
		_, _, err = s.Deduct(ctx, alice, 2, "spent", "")
		require.ErrorIs(t, err, credits.ErrJobConflict)
		_, _, err = s.Deduct(ctx, alice, 100, "job-1", "")
		require.ErrorIs(t, err, credits.ErrInsufficient)
		_, _, err = s.Refund(ctx, alice, "job-1", "")
		require.ErrorIs(t, err, credits.ErrNoDeduct)
		_, _, err = s.Grant(ctx, credits.GrantSpec{UserID: bob, Amount: 3, Key: "grant-after-errors"})
		return err
	})
	require.NoError(t, err, "the transaction commits after the sentinels")
	require.Equal(t, 3, balance(t, svc, bob))
	require.Equal(t, 5, balance(t, svc, alice))
}
