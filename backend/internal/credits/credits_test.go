package credits_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// setup returns a Service on a fresh migrated database, and the database for direct assertions.
func setup(t testing.TB) (*credits.Service, *pgtest.DB) {
	t.Helper()
	d := pgtest.New(t)
	return credits.New(d.Gorm, credits.Config{}), d
}

// newUser inserts a user and, when balance > 0, grants it that many credits.
func newUser(t testing.TB, svc *credits.Service, d *pgtest.DB, balance int) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	// Row().Scan, because gorm's Scan treats a uuid.UUID ([16]byte) destination as a list of bytes.
	err := d.Gorm.Raw(`INSERT INTO users (clerk_user_id, email) VALUES (?, ?) RETURNING id`,
		"user_"+uuid.NewString(), "u@example.com").Row().Scan(&id)
	require.NoError(t, err)
	if balance > 0 {
		_, created, err := svc.Grant(context.Background(), credits.GrantSpec{UserID: id, Amount: balance, Key: "seed-" + id.String(), Reason: "seed"})
		require.NoError(t, err)
		require.True(t, created)
	}
	return id
}

// rows counts ledger rows for a job id, of any kind and user.
func rows(t testing.TB, d *pgtest.DB, jobID string) int {
	t.Helper()
	var n int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM credit_transactions WHERE job_id = ?`, jobID).Scan(&n).Error)
	return n
}

func balance(t testing.TB, svc *credits.Service, user uuid.UUID) int {
	t.Helper()
	n, err := svc.Balance(context.Background(), user)
	require.NoError(t, err)
	return n
}

func TestGrantDeductRefundBalance(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	require.Equal(t, 0, balance(t, svc, user))

	g, created, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: 10, Key: "grant-1", Reason: "signup bonus"})
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, credits.Movement{ID: g.ID, UserID: user, Delta: 10, Kind: credits.KindGrant,
		JobID: "grant-1", Reason: "signup bonus", CreatedAt: g.CreatedAt}, g)
	require.NotEqual(t, uuid.Nil, g.ID)
	require.False(t, g.CreatedAt.IsZero())

	dd, created, err := svc.Deduct(ctx, user, 7, "job-1", "summarise")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, -7, dd.Delta)
	require.Equal(t, credits.KindDeduct, dd.Kind)
	require.Equal(t, 3, balance(t, svc, user))

	r, created, err := svc.Refund(ctx, user, "job-1", "llm timeout")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 7, r.Delta)
	require.Equal(t, credits.KindRefund, r.Kind)
	require.Equal(t, "llm timeout", r.Reason)
	require.Equal(t, 10, balance(t, svc, user))

	c, created, err := svc.MarkCompleted(ctx, user, "job-1")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 0, c.Delta)
	require.Equal(t, credits.KindTaskCompleted, c.Kind)
	require.Equal(t, 10, balance(t, svc, user))
}

func TestGrantRepeatedIsIdempotent(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 0)
	first, created, err := svc.Grant(context.Background(), credits.GrantSpec{UserID: user, Amount: 25, Key: "grant:sub_1:2026-05", Reason: "monthly"})
	require.NoError(t, err)
	require.True(t, created)
	for range 9 {
		// A retry with another amount or reason still returns the original: the job id is the identity.
		again, created, err := svc.Grant(context.Background(), credits.GrantSpec{UserID: user, Amount: 30, Key: "grant:sub_1:2026-05", Reason: "retry"})
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, first.ID, again.ID)
		require.Equal(t, 25, again.Delta)
		require.Equal(t, "monthly", again.Reason)
	}
	require.Equal(t, 1, rows(t, d, "grant:sub_1:2026-05"))
	require.Equal(t, 25, balance(t, svc, user))
}

// Granted sums one family of grant keys of one user: the key itself and its suffixed top-ups, never
// another month's, another user's, or a deduct. "_" in a prefix is a literal, not a LIKE wildcard.
func TestGrantedSumsAKeyFamily(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user, other := newUser(t, svc, d, 0), newUser(t, svc, d, 0)
	for _, g := range []struct {
		user   uuid.UUID
		amount int
		job    string
	}{
		{user, 1000, "grant:sub_1:2026-05-01T00:00:00Z"},
		{user, 4000, "grant:sub_1:2026-05-01T00:00:00Z:team:x1"},
		{user, 7, "grant:sub_1:2026-06-01T00:00:00Z"},
		{user, 9, "grant:subX1:2026-05-01T00:00:00Z"},
		{other, 50, "grant:sub_1:2026-05-01T00:00:00Z:other"},
	} {
		_, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: g.user, Amount: g.amount, Key: g.job, Reason: "test"})
		require.NoError(t, err)
	}
	_, _, err := svc.Deduct(ctx, user, 3, "grant:sub_1:2026-05-01T00:00:00Z:spent", "spent")
	require.NoError(t, err)
	n, err := svc.Granted(ctx, user, "grant:sub_1:2026-05-01T00:00:00Z")
	require.NoError(t, err)
	require.Equal(t, 5000, n)
	n, err = svc.Granted(ctx, user, "grant:sub_9:")
	require.NoError(t, err)
	require.Zero(t, n)
	_, err = svc.Granted(ctx, user, "")
	require.ErrorIs(t, err, credits.ErrInvalidJobID)
}

func TestDeductRepeatedChargesOnce(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 10)
	first, created, err := svc.Deduct(context.Background(), user, 7, "job-1", "")
	require.NoError(t, err)
	require.True(t, created)
	// The balance (3) no longer covers 7, yet a retry must return the original row, not ErrInsufficient.
	for range 3 {
		again, created, err := svc.Deduct(context.Background(), user, 7, "job-1", "")
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, first, again)
	}
	require.Equal(t, 1, rows(t, d, "job-1"))
	require.Equal(t, 3, balance(t, svc, user))
}

func TestDeductInsufficientWritesNothing(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 5)
	m, created, err := svc.Deduct(context.Background(), user, 6, "job-1", "")
	require.ErrorIs(t, err, credits.ErrInsufficient)
	require.ErrorContains(t, err, "deduct credits: ")
	require.False(t, created)
	require.Zero(t, m)
	require.Equal(t, 0, rows(t, d, "job-1"))
	require.Equal(t, 5, balance(t, svc, user))

	// Exactly the balance is enough.
	_, created, err = svc.Deduct(context.Background(), user, 5, "job-2", "")
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 0, balance(t, svc, user))
}
