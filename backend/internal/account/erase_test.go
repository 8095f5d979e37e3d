package account_test

import (
	"context"
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
