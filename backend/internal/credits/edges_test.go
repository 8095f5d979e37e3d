package credits_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// holdLock takes user's ledger lock (their balance row) in a transaction of its own, as a spend in
// flight would, until release is called.
func holdLock(t *testing.T, d *pgtest.DB, user uuid.UUID) (release func()) {
	t.Helper()
	tx := d.Gorm.Begin()
	require.NoError(t, tx.Error)
	require.NoError(t, tx.Exec(`SELECT 1 FROM credit_balances WHERE user_id = ? FOR NO KEY UPDATE`, user).Error)
	return func() { require.NoError(t, tx.Rollback().Error) }
}

// One run of the expiry job goes on batch after batch while batches come back full: 1,001 users with a due
// bucket each are two batches (1,000 and 1), and the 1,001st must not wait for the next run.
// (TestExpiryRunsInBatches has 2,500 buckets of one user, which its first batch's lock covers whole.)
func TestExpiryRunGoesOnPastAFullBatch(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	const users = 1001
	var ids []uuid.UUID
	require.NoError(t, d.Gorm.Raw(`INSERT INTO users (clerk_user_id, email)
		SELECT 'user_exp_' || i, 'u' || i || '@example.com' FROM generate_series(1, ?) i RETURNING id`, users).Scan(&ids).Error)
	require.Len(t, ids, users)
	now := time.Now()
	work := make(chan uuid.UUID)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for id := range work {
				if _, _, err := svc.Grant(ctx, credits.GrantSpec{UserID: id, Amount: 2, Key: "pack", ExpiresAt: at(now.Add(time.Minute))}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for _, id := range ids {
		work <- id
	}
	close(work)
	wg.Wait()
	require.False(t, t.Failed())

	rep, err := svc.ExpireDue(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, credits.ExpiryReport{Buckets: users, Credits: 2 * users}, rep)
	require.Equal(t, users, count(t, d, credits.KindExpire))
}

// The job never waits behind a spend: a user whose lock is held is skipped, and the run says how many due
// buckets it left; the next run writes them off.
func TestExpirySkipsABusyUserAndSaysSo(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	now := time.Now()
	grant(t, svc, user, 7, "pack", credits.CategoryPurchased, at(now.Add(time.Minute)), 0)

	release := holdLock(t, d, user)
	rep, err := svc.ExpireDue(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, credits.ExpiryReport{Skipped: 1}, rep)
	release()

	rep, err = svc.ExpireDue(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, credits.ExpiryReport{Buckets: 1, Credits: 7}, rep)
	mustVerify(t, d)
}

// The limits are inclusive: the largest amount, a job id of MaxJobIDLen characters and a reason of
// MaxReasonLen are stored; one more is refused (TestTextThatCannotBeStoredIsRefusedEverywhere).
func TestLimitsAreInclusive(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	_, created, err := svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: math.MaxInt32, Key: "most"})
	require.NoError(t, err)
	require.True(t, created)
	_, _, err = svc.Grant(ctx, credits.GrantSpec{UserID: user, Amount: math.MaxInt32 + 1, Key: "too-much"})
	require.ErrorIs(t, err, credits.ErrInvalidAmount)

	job, why := strings.Repeat("j", credits.MaxJobIDLen), strings.Repeat("é", credits.MaxReasonLen) // characters, not bytes
	m, created, err := svc.Deduct(ctx, user, 1, job, why)
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, job, m.JobID)
	require.Equal(t, why, m.Reason)
}

// A repeated job id with another amount is a conflict, also when the balance no longer covers the new
// amount: the refused debit must not make the repeat look like the original.
func TestARepeatedJobWithAnotherAmountConflictsWhenTheBalanceIsGone(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 3)
	_, created, err := svc.Deduct(ctx, user, 3, "job-1", "")
	require.NoError(t, err)
	require.True(t, created)

	m, created, err := svc.Deduct(ctx, user, 5, "job-1", "")
	require.ErrorIs(t, err, credits.ErrJobConflict)
	require.False(t, created)
	require.Zero(t, m)
	m, created, err = svc.Deduct(ctx, user, 3, "job-1", "")
	require.NoError(t, err, "the same amount is the idempotent repeat")
	require.False(t, created)
	require.Equal(t, -3, m.Delta)
}

// A spend that gives up waiting for the user's lock fails with its own error, never as "no such user"
// (which the API answers 404, and a worker would take as final).
func TestASpendThatTimesOutIsNotAMissingUser(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	user := newUser(t, svc, d, 10)
	release := holdLock(t, d, user)
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, _, _, err := svc.Charge(ctx, user, 1, "c1", "")
	require.Error(t, err)
	require.NotErrorIs(t, err, db.ErrNotFound, fmt.Sprint(err))
}

// A grant's priority is 1-100 (0 takes the default) and its source fits a job id; anything else is refused
// before a statement runs.
func TestGrantSettingsOutOfRangeAreRefused(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	for i, g := range []credits.GrantSpec{
		{Priority: credits.MinPriority}, {Priority: credits.MaxPriority}, {Priority: 0},
		{Source: strings.Repeat("s", credits.MaxJobIDLen)},
	} {
		g.UserID, g.Amount, g.Key = user, 1, fmt.Sprintf("ok-%d", i)
		_, created, err := svc.Grant(ctx, g)
		require.NoError(t, err, "%+v", g)
		require.True(t, created)
	}
	for i, tc := range []struct {
		g    credits.GrantSpec
		want string
	}{
		{credits.GrantSpec{Priority: credits.MinPriority - 2}, "priority must be 1-100"},
		{credits.GrantSpec{Priority: credits.MaxPriority + 1}, "priority must be 1-100"},
		{credits.GrantSpec{Source: strings.Repeat("s", credits.MaxJobIDLen+1)}, "source is longer than 128 characters"},
	} {
		g := tc.g
		g.UserID, g.Amount, g.Key = user, 1, fmt.Sprintf("bad-%d", i)
		_, _, err := svc.Grant(ctx, g)
		require.ErrorContains(t, err, tc.want, "%+v", g)
	}
	require.Equal(t, 4, balance(t, svc, user))
}
