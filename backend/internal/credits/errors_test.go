package credits_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

func TestInvalidInput(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 10)
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{"grant zero", func() error {
			_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 0, Key: "j"})
			return err
		}, credits.ErrInvalidAmount},
		{"grant negative", func() error {
			_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: -5, Key: "j"})
			return err
		}, credits.ErrInvalidAmount},
		{"deduct zero", func() error { _, _, err := svc.Deduct(ctx, user, 0, "j", ""); return err }, credits.ErrInvalidAmount},
		{"deduct negative", func() error { _, _, err := svc.Deduct(ctx, user, -3, "j", ""); return err }, credits.ErrInvalidAmount},
		{"grant empty job", func() error {
			_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: ""})
			return err
		}, credits.ErrInvalidJobID},
		{"deduct empty job", func() error { _, _, err := svc.Deduct(ctx, user, 1, "", ""); return err }, credits.ErrInvalidJobID},
		{"refund empty job", func() error { _, _, err := svc.Refund(ctx, user, "", ""); return err }, credits.ErrInvalidJobID},
		{"completed empty job", func() error { _, _, err := svc.MarkCompleted(ctx, user, ""); return err }, credits.ErrInvalidJobID},
		{"failed empty job", func() error { _, _, err := svc.MarkFailed(ctx, user, "", ""); return err }, credits.ErrInvalidJobID},
	}
	for _, tt := range tests {
		require.ErrorIs(t, tt.call(), tt.want, tt.name)
	}
	require.Equal(t, 0, rows(t, d, "j"))
	require.Equal(t, 10, balance(t, svc, user))
}

// The hole "users reporting their own job outcomes" (docs/security.md): a job id names one operation of one user.
// Another user reusing it gets an operation of their own (before the fix it was ErrJobConflict, which let one user
// squat or probe another's ids), and never sees or changes the first user's movements. A repeat by the same user with
// another amount still conflicts.
func TestJobIDsAreScopedPerUser(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	alice, bob := newUser(t, svc, d, 10), newUser(t, svc, d, 10)
	aliceGrant, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: alice, Amount: 5, Key: "grant-1"})
	require.NoError(t, err)
	aliceDeduct, _, err := svc.Deduct(ctx, alice, 3, "job-1", "")
	require.NoError(t, err)
	_, _, err = svc.MarkCompleted(ctx, alice, "job-2")
	require.NoError(t, err)

	// Before bob has a deduct of his own, alice's job-1 is invisible to him.
	_, _, err = svc.Refund(ctx, bob, "job-1", "")
	require.ErrorIs(t, err, credits.ErrNoDeduct)
	_, _, err = svc.MarkFailed(ctx, bob, "job-1", "")
	require.ErrorIs(t, err, credits.ErrNoDeduct)

	for name, call := range map[string]func() (credits.Movement, bool, error){
		"grant": func() (credits.Movement, bool, error) {
			return svc.Grant(ctx, credits.GrantSpec{UserID: bob, Amount: 5, Key: "grant-1"})
		},
		"deduct":    func() (credits.Movement, bool, error) { return svc.Deduct(ctx, bob, 2, "job-1", "") },
		"completed": func() (credits.Movement, bool, error) { return svc.MarkCompleted(ctx, bob, "job-2") },
	} {
		m, created, err := call()
		require.NoError(t, err, name)
		require.True(t, created, name)
		require.Equal(t, bob, m.UserID, name)
		require.NotEqual(t, aliceGrant.ID, m.ID, name)
		require.NotEqual(t, aliceDeduct.ID, m.ID, name)
	}
	r, created, err := svc.Refund(ctx, bob, "job-1", "")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 2, r.Delta, "bob's own deduct is refunded, not alice's")

	m, created, err := svc.Deduct(ctx, alice, 4, "job-1", "")
	require.ErrorIs(t, err, credits.ErrJobConflict, "the same user, another amount")
	require.False(t, created)
	require.Zero(t, m)
	_, created, err = svc.Refund(ctx, alice, "job-1", "")
	require.NoError(t, err)
	require.True(t, created, "bob's refund did not touch alice's job")

	require.Equal(t, 15, balance(t, svc, bob))
	require.Equal(t, 15, balance(t, svc, alice))
}

func TestUnknownUser(t *testing.T) {
	t.Parallel()
	svc, _ := setup(t)
	ctx := context.Background()
	nobody := uuid.New()
	_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: nobody, Amount: 1, Key: "g"})
	require.ErrorIs(t, err, db.ErrNotFound)
	_, _, err = svc.Deduct(ctx, nobody, 1, "d", "")
	require.ErrorIs(t, err, db.ErrNotFound)
	_, _, err = svc.Refund(ctx, nobody, "d", "")
	require.ErrorIs(t, err, db.ErrNotFound)
	_, _, err = svc.MarkCompleted(ctx, nobody, "c")
	require.ErrorIs(t, err, db.ErrNotFound)
	n, err := svc.Balance(ctx, nobody)
	require.NoError(t, err)
	require.Zero(t, n)
}

// Text the columns cannot hold is refused before any statement, on every path: the API's spends and the
// webhooks' grants alike. Inside a caller's transaction the refusal leaves the transaction usable.
func TestTextThatCannotBeStoredIsRefusedEverywhere(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 10)
	long := strings.Repeat("x", credits.MaxJobIDLen+1)
	longReason := strings.Repeat("r", credits.MaxReasonLen+1)
	err := d.Gorm.Transaction(func(tx *gorm.DB) error {
		bound := svc.WithTx(tx)
		for name, call := range map[string]func() error{
			"grant long job": func() error {
				_, _, err := bound.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: long})
				return err
			},
			"grant NUL job": func() error {
				_, _, err := bound.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: "a\x00b"})
				return err
			},
			"grant long why": func() error {
				_, _, err := bound.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: "g", Reason: longReason})
				return err
			},
			"deduct bad UTF-8": func() error { _, _, err := bound.Deduct(ctx, user, 1, "\xff", ""); return err },
			"refund long why":  func() error { _, _, err := bound.Refund(ctx, user, "g", longReason); return err },
		} {
			var te *credits.TextError
			require.ErrorIs(t, call(), credits.ErrInvalidText, name)
			require.ErrorAs(t, call(), &te, name)
		}
		_, created, err := bound.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 1, Key: "g-ok", Reason: "fine"})
		require.True(t, created)
		return err
	})
	require.NoError(t, err, "the transaction is still usable after every refusal")
	require.Equal(t, 11, balance(t, svc, user))
}
