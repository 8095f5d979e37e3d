package account_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
)

// withData gives a user a subscription, a ledger row and an audit row.
func withData(t *testing.T, db *gorm.DB, clerkID string) {
	t.Helper()
	require.NoError(t, db.Exec(`WITH u AS (SELECT id FROM users WHERE clerk_user_id = ?),
		s AS (INSERT INTO subscriptions (user_id, paddle_subscription_id, tier, status, last_event_at)
		      SELECT id, 'sub_' || ?, 'pro', 'canceled', now() FROM u),
		c AS (INSERT INTO credit_transactions (user_id, delta, kind, job_id) SELECT id, 25, 'grant', 'signup:' || ? FROM u)
		INSERT INTO audit_logs (actor, action, user_id, resource_id) SELECT 'clerk:webhook', 'user.created', id, ? FROM u`,
		clerkID, clerkID, clerkID, clerkID).Error)
}

func rowsOf(t *testing.T, db *gorm.DB, table, clerkID string) int {
	t.Helper()
	var n int
	require.NoError(t, db.Raw(fmt.Sprintf(`SELECT count(*) FROM %s t JOIN users u ON u.id = t.user_id
		WHERE u.clerk_user_id = ?`, table), clerkID).Scan(&n).Error)
	return n
}

func TestHardDeleteErasesOnlyExpiredAccounts(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, account.Config{DeletionGrace: 30 * day})
	now := time.Now()
	expired := seedUser(t, db, "user_expired", now.Add(-31*day))
	seedUser(t, db, "user_in_grace", now.Add(-29*day))
	seedUser(t, db, "user_live", time.Time{})
	for _, id := range []string{"user_expired", "user_in_grace", "user_live"} {
		withData(t, db, id)
	}

	n, err := svc.HardDeleteExpired(context.Background(), now, 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	var left []string
	require.NoError(t, db.Raw(`SELECT clerk_user_id FROM users ORDER BY 1`).Scan(&left).Error)
	require.Equal(t, []string{"user_in_grace", "user_live"}, left)
	for _, table := range []string{"subscriptions", "credit_transactions"} {
		var n int
		require.NoError(t, db.Raw(`SELECT count(*) FROM `+table+` WHERE user_id = ?`, expired.ID).Scan(&n).Error)
		require.Zero(t, n, "%s cascade with the user", table)
		require.Equal(t, 1, rowsOf(t, db, table, "user_in_grace"))
	}
	var audits []string
	require.NoError(t, db.Raw(`SELECT action FROM audit_logs WHERE user_id = ? ORDER BY created_at, action`, expired.ID).Scan(&audits).Error)
	require.ElementsMatch(t, []string{"user.created", account.ActionHardDeleted}, audits, "audit rows outlive the user")
	var details string
	require.NoError(t, db.Raw(`SELECT details::text FROM audit_logs WHERE action = ?`, account.ActionHardDeleted).Scan(&details).Error)
	require.NotContains(t, details, "@", "no personal data in the erasure record")

	n, err = svc.HardDeleteExpired(context.Background(), now, 10)
	require.NoError(t, err)
	require.Zero(t, n, "a second run finds nothing")
}

func TestConcurrentHardDeletesEraseEachUserOnce(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, account.Config{DeletionGrace: 30 * day})
	now := time.Now()
	const users = 25
	for i := range users {
		seedUser(t, db, fmt.Sprintf("user_%02d", i), now.Add(-40*day))
		withData(t, db, fmt.Sprintf("user_%02d", i))
	}

	var erased atomic.Int64
	start := make(chan struct{})
	errs := make(chan error, 5)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			<-start
			for {
				// Small batches so the runs overlap: each skips the rows another has locked.
				n, err := svc.HardDeleteExpired(context.Background(), now, 3)
				if err != nil || n == 0 {
					errs <- err
					return
				}
				erased.Add(int64(n))
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	require.EqualValues(t, users, erased.Load())
	var audits, distinct, left int
	require.NoError(t, db.Raw(`SELECT count(*), count(DISTINCT resource_id) FROM audit_logs WHERE action = ?`,
		account.ActionHardDeleted).Row().Scan(&audits, &distinct))
	require.NoError(t, db.Raw(`SELECT count(*) FROM users`).Scan(&left).Error)
	require.Equal(t, users, audits, "one erasure record per user")
	require.Equal(t, users, distinct)
	require.Zero(t, left)
}

// The hole "an erased user resurrected by a late event" (docs/security.md): the hard delete leaves a tombstone that
// says nothing about the person: 32 bytes of keyed hash, neither the Clerk id nor its plain hash, and meaningless under
// any other key.
func TestTombstoneIsAKeyedHashWithNoPersonalData(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, account.Config{DeletionGrace: 30 * day})
	seedUser(t, db, "user_tomb", time.Now().Add(-31*day))
	n, err := svc.HardDeleteExpired(context.Background(), time.Now(), 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	var rows []struct {
		ClerkIDHash []byte
		ErasedAt    time.Time
	}
	require.NoError(t, db.Raw(`SELECT clerk_id_hash, erased_at FROM erased_users`).Scan(&rows).Error)
	require.Len(t, rows, 1)
	h := rows[0].ClerkIDHash
	require.Len(t, h, sha256.Size)
	plain := sha256.Sum256([]byte("user_tomb"))
	require.NotEqual(t, plain[:], h, "keyed: nobody holding a Clerk id can look it up without the key")
	require.False(t, bytes.Contains(h, []byte("user_tomb")))
	require.WithinDuration(t, time.Now(), rows[0].ErasedAt, time.Minute)

	_, err = account.EnsureUserTx(context.Background(), db, account.NewErasures(testErasureKey), "user_tomb", "x@example.com", true)
	require.ErrorIs(t, err, account.ErrErased)
	require.ErrorIs(t, err, account.ErrDeleted, "an erased user answers like a deleted one: 410")
	// Why the key must never rotate: under another key the tombstone no longer matches.
	u, err := account.EnsureUserTx(context.Background(), db, account.NewErasures("a-rotated-erasure-key-0123456789abcdef"), "user_tomb", "x@example.com", true)
	require.NoError(t, err)
	require.Equal(t, "user_tomb", u.ClerkUserID)
}

// Without a key nothing can be checked, so nothing is created (a wiring mistake fails closed).
func TestEnsureUserWithoutAnErasureKeyCreatesNothing(t *testing.T) {
	t.Parallel()
	_, db := newService(t, account.Config{})
	_, err := account.EnsureUserTx(context.Background(), db, account.Erasures{}, "user_new", "new@example.com", true)
	require.ErrorContains(t, err, "erasure tombstone key is not configured")
	var n int
	require.NoError(t, db.Raw(`SELECT count(*) FROM users`).Scan(&n).Error)
	require.Zero(t, n)
}

// The hole "an erased user resurrected by a late event" (docs/security.md), the race: a late user.created whose upsert
// waits on the row lock of a hard delete in progress finds no row to conflict with once the delete commits. It must not
// insert a fresh user: the delivery fails (everything rolled back) and its retry is a clean no-op.
func TestUserCreatedRacingTheErasureDoesNotResurrect(t *testing.T) {
	t.Parallel()
	raceTheErasure(t, account.EventUserCreated)
}

// The same race for user.updated, whose upsert takes the second look on its own (no sign-up claim).
func TestUserUpdatedRacingTheErasureDoesNotResurrect(t *testing.T) {
	t.Parallel()
	raceTheErasure(t, account.EventUserUpdated)
}

func raceTheErasure(t *testing.T, eventType string) {
	e := setup(t)
	ctx := context.Background()
	seedUser(t, e.db, "user_race", time.Now().Add(-31*day))

	// The erasure, held open after its delete and tombstone.
	eraser := e.db.Begin()
	require.NoError(t, eraser.Exec(`DELETE FROM users WHERE clerk_user_id = 'user_race'`).Error)
	require.NoError(t, account.RecordErasureTx(ctx, eraser, account.NewErasures(testErasureKey), "user_race"))

	done := make(chan error, 1)
	go func() { done <- e.tryApply(t, eventType, "user_race", "race@example.com", 5000) }()
	require.Eventually(t, func() bool {
		var waiting int
		require.NoError(t, e.db.Raw(`SELECT count(*) FROM pg_locks WHERE NOT granted`).Scan(&waiting).Error)
		return waiting > 0
	}, 10*time.Second, 10*time.Millisecond, "the upsert waits on the erasure's row lock")
	require.NoError(t, eraser.Commit().Error)

	require.ErrorIs(t, <-done, account.ErrErased, "the raced upsert fails the delivery")
	require.NoError(t, e.tryApply(t, eventType, "user_race", "race@example.com", 5000), "the retry succeeds")
	var users, grants int
	require.NoError(t, e.db.Raw(`SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM credit_transactions)`).Row().Scan(&users, &grants))
	require.Zero(t, users, "no user came back")
	require.Zero(t, grants)
	require.Empty(t, e.mailer.Keys(), "no welcome")
}
