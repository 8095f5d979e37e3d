package account_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// Ten deletes at once (a double click, retries): one deletion, one "deletion scheduled" email keyed by it.
// A restore then a second deletion is another deletion, with its own email. Clerk's user.deleted sends none.
func TestDeletionScheduledEmailOncePerDeletion(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	m := &jobstest.Mailer{}
	svc := newAccounts(t, d.Gorm, m, account.Config{DeletionGrace: 30 * day})
	u := seedUser(t, d.Gorm, "user_del", time.Time{})
	actor := audit.Actor{UserID: u.ID, ClerkUserID: u.ClerkUserID}

	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			<-start
			_, _ = svc.Delete(context.Background(), actor)
		})
	}
	close(start)
	wg.Wait()
	keys := m.Keys()
	require.Len(t, keys, 1)
	require.True(t, strings.HasPrefix(keys[0], fmt.Sprintf("deletion_scheduled/%s/", u.ID)), keys[0])

	signedIn := time.Now().Add(time.Second)
	_, err := svc.Authenticate(context.Background(), account.Identity{ClerkUserID: "user_del", AuthTime: &signedIn})
	require.NoError(t, err, "restored")
	_, err = svc.Delete(context.Background(), actor)
	require.NoError(t, err)
	require.Len(t, m.Keys(), 2)
	require.NotEqual(t, m.Keys()[0], m.Keys()[1])

	e := &env{db: d.Gorm, handlers: svc.ClerkHandlers(), mailer: m}
	e.apply(t, account.EventUserCreated, "user_clerk_del", "c@example.com", 1000)
	e.apply(t, account.EventUserDeleted, "user_clerk_del", "", 2000)
	require.Equal(t, []string{"welcome/user_clerk_del"}, m.Keys()[2:], "no deletion email after Clerk deleted the identity")
}
