package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The example of docs/extending.md: a deployment's own sign-up hook, registered through Options, runs
// exactly once per user however Clerk delivers user.created (ten replays, another event id for the same
// user, twenty deliveries at once on two instances), and a failing run fails the delivery for a clean retry.

// crmHook stands for "tell the CRM about the new user": it writes its own row through tx (here an audit
// row) — in a real hook, enqueue a job in tx rather than calling out — and fails while down is set.
func crmHook(down *atomic.Bool) account.SignupHook {
	return account.SignupHook{Name: "crm-contact", Run: func(ctx context.Context, tx *gorm.DB, u account.NewUser) error {
		if down.Load() {
			return errors.New("crm is down")
		}
		return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorSystem, Action: "crm.contact_created", UserID: &u.ID,
			ResourceType: "user", ResourceID: u.ClerkUserID})
	}}
}

func TestExampleSignupHookRunsOncePerUser(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	var down atomic.Bool
	opts := Options{SignupHooks: []account.SignupHook{crmHook(&down)}}
	a1, a2 := appOn(t, d, nil, opts), appOn(t, d, nil, opts)
	runs := func(clerkID string) int64 {
		var n int64
		require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM audit_logs WHERE action = 'crm.contact_created' AND resource_id = ?`,
			clerkID).Scan(&n).Error)
		return n
	}

	// Ten replays of one delivery, then the same sign-up under another event id.
	h, body := clerkEvent(t, "msg_1", "user.created", "user_1", "one@example.com", 1_700_000_000_000)
	for range 10 {
		require.Equal(t, http.StatusOK, deliver(a1.Echo(), webhook.ProviderClerk, h, body).Code)
	}
	h, body = clerkEvent(t, "msg_1b", "user.created", "user_1", "one@example.com", 1_700_000_000_000)
	require.Equal(t, http.StatusOK, deliver(a2.Echo(), webhook.ProviderClerk, h, body).Code)
	require.Equal(t, int64(1), runs("user_1"))

	// Twenty deliveries at once, half of them with their own event id, spread over two instances.
	const n = 20
	start := make(chan struct{})
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			h, body := clerkEvent(t, fmt.Sprintf("msg_2_%d", i%2*i), "user.created", "user_2", "two@example.com", 1_700_000_000_000)
			srv := a1.Echo()
			if i%2 == 1 {
				srv = a2.Echo()
			}
			<-start
			codes <- deliver(srv, webhook.ProviderClerk, h, body).Code
		})
	}
	close(start)
	wg.Wait()
	close(codes)
	for c := range codes {
		require.Equal(t, http.StatusOK, c)
	}
	require.Equal(t, int64(1), runs("user_2"))

	// The CRM is down: the delivery fails (500, Svix retries) and leaves nothing, not even the user; the
	// retry, with the CRM back, runs every hook once.
	down.Store(true)
	h, body = clerkEvent(t, "msg_3", "user.created", "user_3", "three@example.com", 1_700_000_000_000)
	require.Equal(t, http.StatusInternalServerError, deliver(a1.Echo(), webhook.ProviderClerk, h, body).Code)
	var users int64
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM users WHERE clerk_user_id = 'user_3'`).Scan(&users).Error)
	require.Zero(t, users)
	down.Store(false)
	require.Equal(t, http.StatusOK, deliver(a1.Echo(), webhook.ProviderClerk, h, body).Code)
	require.Equal(t, int64(1), runs("user_3"))
	require.Equal(t, tally{Users: 3, Grants: 3, Credits: 75, EmailJobs: 3}, emailsAndGrants(countAll(t, d)))
}

// emailsAndGrants keeps the user, grant and welcome counts of a tally.
func emailsAndGrants(c tally) tally {
	return tally{Users: c.Users, Grants: c.Grants, Credits: c.Credits, EmailJobs: c.EmailJobs}
}
