package account_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/disposable"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// recordingHook writes an audit row per run, so only committed runs count, and can be made to fail.
type recordingHook struct{ failures atomic.Int32 }

func (h *recordingHook) hook() account.SignupHook {
	return account.SignupHook{Name: "recorder", Run: func(ctx context.Context, tx *gorm.DB, u account.NewUser) error {
		if h.failures.Add(-1) >= 0 {
			return errors.New("crm unavailable")
		}
		return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorSystem, Action: "test.signup_hook", UserID: &u.ID,
			ResourceType: "user", ResourceID: u.ClerkUserID, Details: map[string]any{"email": u.Email}})
	}}
}

func setupHooks(t *testing.T, hs hookSet) *env {
	t.Helper()
	d := pgtest.New(t)
	m := &jobstest.Mailer{}
	svc := newAccountsWith(t, d.Gorm, m, account.Config{AppName: "Fabrica"}, hs)
	return &env{db: d.Gorm, handlers: svc.ClerkHandlers(), mailer: m}
}

func (e *env) hookRuns(t *testing.T, clerkID string) int {
	t.Helper()
	return countAudit(t, e.db, "test.signup_hook", clerkID)
}

// Each hook runs once per user: user.created replayed under new event ids, delivered ten at a time, or
// arriving after user.updated created the row.
func TestSignupHooksRunOncePerUser(t *testing.T) {
	t.Parallel()
	h := &recordingHook{}
	e := setupHooks(t, hookSet{extra: []account.SignupHook{h.hook()}})

	e.apply(t, account.EventUserCreated, "user_once", "once@example.com", 1000)
	e.apply(t, account.EventUserCreated, "user_once", "once@example.com", 1000)
	require.Equal(t, 1, e.hookRuns(t, "user_once"))

	start := make(chan struct{})
	errs := make(chan error, 10)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			<-start
			errs <- e.tryApply(t, account.EventUserCreated, "user_burst", "burst@example.com", 1000)
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, 1, e.hookRuns(t, "user_burst"))
	require.Equal(t, userState{Email: "burst@example.com", Balance: testSignupCredits}, e.user(t, "user_burst"))

	e.apply(t, account.EventUserUpdated, "user_late", "late@example.com", 2000)
	require.Zero(t, e.hookRuns(t, "user_late"), "user.updated is not a sign-up")
	e.apply(t, account.EventUserCreated, "user_late", "late@example.com", 1000)
	require.Equal(t, 1, e.hookRuns(t, "user_late"), "the row existed, the sign-up had not happened")
	require.ElementsMatch(t, []string{"welcome/user_once", "welcome/user_burst", "welcome/user_late"}, e.mailer.Keys())
}

// A failing hook fails the delivery: nothing of it stays (no user, no grant, no other hook's row), and the
// retry runs every hook from a clean state.
func TestFailingSignupHookRollsTheDeliveryBack(t *testing.T) {
	t.Parallel()
	h := &recordingHook{}
	h.failures.Store(1)
	e := setupHooks(t, hookSet{extra: []account.SignupHook{h.hook()}})
	err := e.tryApply(t, account.EventUserCreated, "user_retry", "retry@example.com", 1000)
	require.ErrorContains(t, err, "signup hook recorder: crm unavailable")
	require.False(t, errors.Is(err, webhook.ErrPermanent), "transient: the provider retries")
	var n int
	require.NoError(t, e.db.Raw(`SELECT count(*) FROM users`).Scan(&n).Error)
	require.Zero(t, n)

	e.apply(t, account.EventUserCreated, "user_retry", "retry@example.com", 1000)
	require.Equal(t, 1, e.hookRuns(t, "user_retry"))
	require.Equal(t, testSignupCredits, e.user(t, "user_retry").Balance)
}

// A lazily created user (a session before the webhook) still signs up once user.created arrives.
func TestSessionFirstUserStillSignsUpOnce(t *testing.T) {
	t.Parallel()
	h := &recordingHook{}
	d := pgtest.New(t)
	m := &jobstest.Mailer{}
	svc := newAccountsWith(t, d.Gorm, m, account.Config{}, hookSet{extra: []account.SignupHook{h.hook()}})
	_, err := svc.EnsureUser(context.Background(), "user_lazy", "lazy@example.com", true)
	require.NoError(t, err)
	e := &env{db: d.Gorm, handlers: svc.ClerkHandlers(), mailer: m}
	require.Zero(t, e.hookRuns(t, "user_lazy"))
	for range 3 {
		e.apply(t, account.EventUserCreated, "user_lazy", "lazy@example.com", 1000)
	}
	require.Equal(t, 1, e.hookRuns(t, "user_lazy"))
	require.Equal(t, []string{"welcome/user_lazy"}, m.Keys())
}

// A verified address on the disposable blocklist: the user exists, gets no signup credits, is flagged and
// audited; the welcome still goes (they are a user). Other users are untouched.
func TestDisposableEmailGetsNoSignupCredits(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	list, err := disposable.New(d.Gorm, disposable.Config{}, nil)
	require.NoError(t, err)
	m := &jobstest.Mailer{}
	svc := newAccountsWith(t, d.Gorm, m, account.Config{}, hookSet{screen: list})
	e := &env{db: d.Gorm, handlers: svc.ClerkHandlers(), mailer: m}

	for i := range 3 {
		e.apply(t, account.EventUserCreated, "user_throwaway", "x@inbox.mailinator.com", int64(1000+i))
	}
	e.apply(t, account.EventUserCreated, "user_real", "real@example.com", 1000)
	require.Equal(t, userState{Email: "x@inbox.mailinator.com"}, e.user(t, "user_throwaway"))
	require.Equal(t, testSignupCredits, e.user(t, "user_real").Balance)

	var flags []bool
	require.NoError(t, d.Gorm.Raw(`SELECT disposable_email FROM users ORDER BY clerk_user_id`).Scan(&flags).Error)
	require.Equal(t, []bool{false, true}, flags, "user_real, user_throwaway")
	require.Equal(t, 1, countAudit(t, d.Gorm, account.ActionDisposableEmail, "user_throwaway"))
	var details string
	require.NoError(t, d.Gorm.Raw(`SELECT details::text FROM audit_logs WHERE action = ?`, account.ActionDisposableEmail).Scan(&details).Error)
	require.Contains(t, details, `"blocklist_entry": "mailinator.com"`)
	require.NotContains(t, details, "x@", "the audit names the blocklist entry, not the address")
	require.Equal(t, []string{"welcome/user_throwaway", "welcome/user_real"}, m.Keys())
}
