package catchup_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/catchup"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// users lists the users table as "clerk id <email>", in clerk id order.
func (e *env) users(t *testing.T) []string {
	t.Helper()
	var out []string
	require.NoError(t, e.db.Raw(`SELECT clerk_user_id || ' <' || email || '>' FROM users ORDER BY clerk_user_id`).Scan(&out).Error)
	return out
}

// The Clerk users sync reads Clerk's Backend API through clerk-sdk-go (NewClerkUsers: the secret key as
// bearer, pages of 100 oldest first, the count beside each page) and creates every user we have no row
// for through user.created's real handler: the user with its verified address and its signup credits,
// once. Users we have are skipped without a write; a second run skips everyone.
func TestClerkUsersSyncCreatesTheMissingThroughTheBackendAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ids := e.clerk.addUsers("a", 150) // two pages: 100 and 50
	// user_a000 signed up by webhook; the sync must leave it alone.
	h := http.Header{}
	h.Set(webhook.SvixIDHeader, "msg_1")
	_, err := e.pipeline.IngestTrusted(context.Background(), webhook.ProviderClerk, webhook.SourceWebhook, h,
		[]byte(`{"type":"user.created","timestamp":1,"data":{"id":"user_a000","primary_email_address_id":"idn_1",
		"email_addresses":[{"id":"idn_1","email_address":"a000@example.com","verification":{"status":"verified"}}]}}`))
	require.NoError(t, err)

	rep, err := e.svc.SyncClerkUsers(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 150, Skipped: 1, Processed: 149}, rep)
	users := e.users(t)
	require.Len(t, users, 150)
	require.Equal(t, "user_a001 <a001@example.com>", users[1], "the address survives the SDK's decoding and re-encoding")
	require.Equal(t, []string{"sync/processed"}, e.archived(t, webhook.ProviderClerk, "sync_"+ids[149]))
	require.Empty(t, e.archived(t, webhook.ProviderClerk, "sync_"+ids[0]), "a user we have is skipped without a write")
	var grants int
	require.NoError(t, e.db.Raw(`SELECT count(*) FROM credit_transactions WHERE kind = 'grant'`).Scan(&grants).Error)
	require.Equal(t, 150, grants, "one signup grant each")

	require.Equal(t, []string{"/v1/users?limit=100&offset=0&order_by=created_at", "/v1/users?limit=100&offset=100&order_by=created_at"},
		e.clerk.listRequests())
	e.clerk.mu.Lock()
	require.Len(t, e.clerk.requests, 4, "each page asks for the count too")
	for _, auth := range e.clerk.auth {
		require.Equal(t, "Bearer "+clerkKey, auth)
	}
	e.clerk.mu.Unlock()

	rep, err = e.svc.SyncClerkUsers(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 150, Skipped: 150}, rep)
}

// A full last page ends the sync when the count says there is nothing after it: no request for an empty
// page. An empty list is one request.
func TestClerkUsersSyncStopsAtTheCount(t *testing.T) {
	t.Parallel()
	e := setup(t)
	rep, err := e.svc.SyncClerkUsers(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{}, rep)
	require.Len(t, e.clerk.listRequests(), 1)

	e.clerk.addUsers("b", 100)
	rep, err = e.svc.SyncClerkUsers(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 100, Processed: 100}, rep)
	require.Len(t, e.clerk.listRequests(), 2, "one more: the single full page")
}

// A user whose sign-up fails (a deployment's hook cannot reach its CRM) is archived failed and counted;
// the users after it are still created. The next run retries it: it has no row yet.
func TestClerkUsersSyncGoesOnPastAFailedUser(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.clerk.addUsers("c", 2)
	e.clerk.mu.Lock()
	e.clerk.users = append([]map[string]any{clerkUser(failingUser)}, e.clerk.users...)
	e.clerk.mu.Unlock()

	rep, err := e.svc.SyncClerkUsers(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 3, Processed: 2, Failed: 1}, rep)
	require.Equal(t, []string{"user_c000 <c000@example.com>", "user_c001 <c001@example.com>"}, e.users(t))
	require.Equal(t, []string{"sync/failed"}, e.archived(t, webhook.ProviderClerk, "sync_"+failingUser))

	rep, err = e.svc.SyncClerkUsers(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 3, Skipped: 2, Failed: 1}, rep)
}

// Clerk's API failing stops the sync with the error and what was done so far: a later page's failure
// keeps the users of the pages before it.
func TestClerkUsersSyncReportsTheAPIsFailure(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.clerk.addUsers("d", 120)
	e.clerk.failOn = 3 // the second page's list (1: list, 2: count, 3: list)
	rep, err := e.svc.SyncClerkUsers(context.Background())
	require.ErrorContains(t, err, "sync clerk users")
	require.Equal(t, catchup.Report{Listed: 100, Processed: 100}, rep)
	require.Len(t, e.users(t), 100)

	broken := catchup.New(catchup.Deps{DB: e.db, Pipeline: e.pipeline, Clerk: catchup.NewClerkUsers(clerkKey, "http://127.0.0.1:1/v1"),
		UserExists: func(context.Context, string) (bool, error) { return false, nil }, Now: func() time.Time { return now }})
	_, err = broken.SyncClerkUsers(context.Background())
	require.ErrorContains(t, err, "sync clerk users", "Clerk unreachable")

	e.clerk.failOn = 0
	noDB := catchup.New(catchup.Deps{DB: e.db, Pipeline: e.pipeline, Clerk: catchup.NewClerkUsers(clerkKey, e.clerkURL),
		UserExists: func(context.Context, string) (bool, error) { return false, errors.New("database down") }})
	rep, err = noDB.SyncClerkUsers(context.Background())
	require.ErrorContains(t, err, "sync clerk user user_d000: database down")
	require.Equal(t, catchup.Report{Listed: 1}, rep)
}
