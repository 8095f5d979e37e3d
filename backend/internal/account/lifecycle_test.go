package account_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

const day = 24 * time.Hour

func newService(t *testing.T, cfg account.Config) (*account.Service, *gorm.DB) {
	t.Helper()
	d := pgtest.New(t)
	return newAccounts(t, d.Gorm, &jobstest.Mailer{}, cfg), d.Gorm
}

// seedUser inserts a user with a verified address, soft-deleted at deletedAt unless it is zero, and returns it.
func seedUser(t *testing.T, db *gorm.DB, clerkID string, deletedAt time.Time) models.User {
	t.Helper()
	var del *time.Time
	if !deletedAt.IsZero() {
		del = &deletedAt
	}
	var u models.User
	require.NoError(t, db.Raw(`INSERT INTO users (clerk_user_id, email, email_verified, deleted_at, marketing_consent_given)
		VALUES (?, ?, true, ?, true) RETURNING *`, clerkID, clerkID+"@example.com", del).Scan(&u).Error)
	return u
}

func countAudit(t *testing.T, db *gorm.DB, action, resourceID string) int {
	t.Helper()
	var n int
	require.NoError(t, db.Raw(`SELECT count(*) FROM audit_logs WHERE action = ? AND resource_id = ?`, action, resourceID).Scan(&n).Error)
	return n
}

func TestRestoreNeedsASignInAfterDeletionWithinGrace(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, account.Config{DeletionGrace: 30 * day})
	now := time.Now()
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	for _, tc := range []struct {
		name        string
		deletedAgo  time.Duration
		authTime    *time.Time
		wantRestore bool
	}{
		{"signed in after deletion", time.Hour, at(-time.Minute), true},
		{"session older than deletion", time.Hour, at(-2 * time.Hour), false},
		{"no auth_time", time.Hour, nil, false},
		{"grace period over", 31 * day, at(-time.Minute), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clerkID := "user_" + tc.name
			seedUser(t, db, clerkID, now.Add(-tc.deletedAgo))
			u, err := svc.Authenticate(context.Background(), account.Identity{ClerkUserID: clerkID, AuthTime: tc.authTime})
			if !tc.wantRestore {
				require.ErrorIs(t, err, account.ErrDeleted)
				require.Zero(t, countAudit(t, db, account.ActionRestored, clerkID))
				return
			}
			require.NoError(t, err)
			require.Nil(t, u.DeletedAt)
			require.Equal(t, 1, countAudit(t, db, account.ActionRestored, clerkID))
		})
	}
}

func TestConcurrentSignInsRestoreOnce(t *testing.T) {
	t.Parallel()
	svc, db := newService(t, account.Config{})
	seedUser(t, db, "user_race", time.Now().Add(-time.Hour))
	signedIn := time.Now().Add(-time.Minute)

	start := make(chan struct{})
	errs := make(chan error, 10)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			<-start
			u, err := svc.Authenticate(context.Background(), account.Identity{ClerkUserID: "user_race", AuthTime: &signedIn})
			if err == nil && u.DeletedAt != nil {
				err = account.ErrDeleted
			}
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "every request of the new session gets the restored account")
	}
	require.Equal(t, 1, countAudit(t, db, account.ActionRestored, "user_race"))
}
