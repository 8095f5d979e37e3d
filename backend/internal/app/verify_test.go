package app

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/catchup"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// found runs every check of a and returns the subjects each check found.
func found(t *testing.T, a *App) map[string][]string {
	t.Helper()
	rep, err := a.Verify(context.Background(), nil, verify.Scope{})
	require.NoError(t, err)
	out := map[string][]string{}
	for _, r := range rep.Results {
		for _, v := range r.Violations {
			out[r.Check.Name] = append(out[r.Check.Name], v.Subject)
		}
	}
	return out
}

// signUp delivers user.created for clerkID, as Clerk would.
func signUp(t *testing.T, a *App, clerkID string) {
	t.Helper()
	h, body := clerkEvent(t, "msg_"+clerkID, "user.created", clerkID, clerkID+"@example.com", time.Now().UnixMilli())
	require.Equal(t, http.StatusOK, deliver(a.Echo(), webhook.ProviderClerk, h, body).Code)
}

func TestEveryAreaHasItsChecks(t *testing.T) {
	t.Parallel()
	a, _ := testApp(t, nil)
	require.Equal(t, []string{"ledger", "billing", "webhooks", "sync", "account", "jobs", "usage"}, verify.Areas(a.Checks()))
	names := map[string]bool{}
	for _, c := range a.Checks() {
		require.False(t, names[c.Name], "one name per check: %s", c.Name)
		names[c.Name] = true
		require.NotEmpty(t, c.Doc, c.Name)
	}
	_, err := a.Verify(context.Background(), []string{"nosuch"}, verify.Scope{})
	require.ErrorContains(t, err, `unknown area "nosuch"`)
}

// One welcome email job per user who signed up with an address, and no email job twice for one key: a
// job deleted behind the queue's back, or one enqueued twice, is found.
func TestWelcomeEmailChecksFindPlantedViolations(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	signUp(t, e.app, "user_w1")
	signUp(t, e.app, "user_w2")
	require.Empty(t, found(t, e.app))

	unverified(e.db, "the test plants violations")
	require.NoError(t, e.db.Gorm.Exec(`DELETE FROM river_job WHERE kind = 'email' AND args->>'idempotency_key' = 'welcome/user_w1'`).Error)
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO river_job (args, kind, max_attempts, queue, state)
		SELECT args, kind, max_attempts, queue, state FROM river_job WHERE args->>'idempotency_key' = 'welcome/user_w2'`).Error)
	var w1, w2 string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_w1'`).Scan(&w1).Error)
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_w2'`).Scan(&w2).Error)
	got := found(t, e.app)
	require.ElementsMatch(t, []string{w1, w2}, got["account.welcome_email_once"])
	require.Equal(t, []string{"welcome/user_w2"}, got["jobs.email_key_once"])
	require.Len(t, got, 2, got)
}

// With PADDLE_API_KEY, the events cursor is past every event of a handled type claimed more than three
// sync intervals ago, well formed and not in the future.
func TestPaddleCursorCheckFindsAStuckSync(t *testing.T) {
	t.Parallel()
	e, events, b := catchupEnv(t)
	pushed := paddleEvent(t, b, "user_pushed", "subscription.created", time.Now().Add(-2*time.Hour))
	events.add(t, pushed.Body)
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderPaddle, pushed.Header, pushed.Body).Code)
	require.Empty(t, found(t, e.app), "claimed just now: the sync has time")

	// Two hours on, the sync never ran.
	require.NoError(t, e.db.Gorm.Exec(`UPDATE processed_webhook_events SET processed_at = now() - interval '2 hours'`).Error)
	require.Equal(t, map[string][]string{"sync.paddle_cursor": {catchup.PaddleCursor}}, found(t, e.app))
	_, err := e.app.RunTask(context.Background(), "paddle-events-sync")
	require.NoError(t, err)
	require.Empty(t, found(t, e.app), "the sync moved past it")

	unverified(e.db, "the test plants violations")
	for _, cursor := range []string{catchup.NewEventID(time.Now().Add(time.Hour)), "evt_not-a-ulid"} {
		require.NoError(t, e.db.Gorm.Exec(`UPDATE sync_cursors SET cursor = ?`, cursor).Error)
		require.Equal(t, map[string][]string{"sync.paddle_cursor": {catchup.PaddleCursor}}, found(t, e.app), cursor)
	}
}

// opsAlerts returns the ops_alert email jobs: who each goes to and its title.
func opsAlerts(t *testing.T, e *apiEnv) [][2]string {
	t.Helper()
	var rows []struct{ To, Data string }
	require.NoError(t, e.db.Gorm.Raw(`SELECT args->>'to' AS "to", args->>'data' AS data FROM river_job
		WHERE kind = 'email' AND args->>'template' = ? ORDER BY id`, email.TemplateOpsAlert).Scan(&rows).Error)
	var out [][2]string
	for _, r := range rows {
		var d email.OpsAlertData
		require.NoError(t, json.Unmarshal([]byte(r.Data), &d))
		out = append(out, [2]string{r.To, d.Title})
	}
	return out
}

// The daily verify task mails every operator once per new violation: a second run that finds the same
// one mails nothing; a new one mails each operator once more. It changes nothing it checks.
func TestDailyVerifyAlertsOncePerNewViolation(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t) // ADMIN_EMAILS: two operators
	signUp(t, e.app, "user_v1")
	signUp(t, e.app, "user_v2")
	run := func() map[string]int {
		t.Helper()
		rep, err := e.app.RunTask(context.Background(), "verify")
		require.NoError(t, err)
		return rep
	}
	require.Equal(t, 0, run()["violations"])
	require.Empty(t, opsAlerts(t, e))

	unverified(e.db, "the test plants violations")
	require.NoError(t, e.db.Gorm.Exec(`UPDATE users SET current_tier = 'pro' WHERE clerk_user_id = 'user_v1'`).Error)
	for range 2 {
		rep := run()
		require.Equal(t, 1, rep["violations"])
	}
	one := [][2]string{{"Boss@EXAMPLE.com", "1 new consistency violation(s)"}, {"kate@example.com", "1 new consistency violation(s)"}}
	require.Equal(t, one, opsAlerts(t, e), "one email per operator, the second run mails nothing")

	require.NoError(t, e.db.Gorm.Exec(`UPDATE users SET current_tier = 'team' WHERE clerk_user_id = 'user_v2'`).Error)
	rep := run()
	require.Equal(t, map[string]int{"checks": len(e.app.Checks()), "violations": 2, "new": 1, "resolved": 0}, map[string]int(rep))
	require.Equal(t, slices.Concat(one, one), opsAlerts(t, e), "one more per operator for the new one")
	var tiers []string
	require.NoError(t, e.db.Gorm.Raw(`SELECT current_tier FROM users WHERE clerk_user_id IN ('user_v1', 'user_v2') ORDER BY clerk_user_id`).Scan(&tiers).Error)
	require.Equal(t, []string{"pro", "team"}, tiers, "nothing fixed")

	require.NoError(t, e.db.Gorm.Exec(`UPDATE users SET current_tier = 'free'`).Error)
	require.Equal(t, 2, run()["resolved"])
}
