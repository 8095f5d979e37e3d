package app

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

// broadcastEnv is an admin env whose App (and any second one on the same database) mails through sender.
type broadcastEnv struct {
	*apiEnv
	sender *recordingSender
	vars   map[string]string
}

func newBroadcastEnv(t *testing.T) *broadcastEnv {
	t.Helper()
	d := pgtest.New(t)
	e := &broadcastEnv{apiEnv: &apiEnv{db: d, issuer: sessiontest.NewIssuer(t), paddle: &fakePaddle{}}, sender: &recordingSender{}}
	e.vars = map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "ADMIN_EMAILS": "boss@example.com",
		"EMAIL_RATE_PER_SECOND": "0", "SHUTDOWN_TIMEOUT": "5s", "PUBLIC_BASE_URL": "https://api.test"}
	e.app = e.another(t)
	return e
}

// another is one more server process on the same database, mailing through the same fake provider.
func (e *broadcastEnv) another(t *testing.T) *App {
	return appOn(t, e.db, e.vars, Options{PaddleAPI: e.paddle, EmailSender: e.sender})
}

// seed inserts n users named prefix0.. with or without marketing consent and returns their ids.
func (e *broadcastEnv) seed(t *testing.T, prefix string, n int, consent bool) []uuid.UUID {
	t.Helper()
	ids := make([]uuid.UUID, n)
	for i := range ids {
		require.NoError(t, e.db.Gorm.Raw(`INSERT INTO users (clerk_user_id, email, email_verified, marketing_consent_given)
			VALUES (?, ?, true, ?) RETURNING id`, fmt.Sprintf("user_%s%d", prefix, i), fmt.Sprintf("%s%d@example.com", prefix, i),
			consent).Row().Scan(&ids[i]))
	}
	return ids
}

// work runs the job workers of apps until cond holds.
func work(t *testing.T, cond func() bool, apps ...*App) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, len(apps))
	for _, a := range apps {
		go func() { done <- a.RunWorkers(ctx) }()
	}
	require.Eventually(t, cond, 30*time.Second, 50*time.Millisecond)
	cancel()
	for range apps {
		require.NoError(t, <-done)
	}
}

func (e *broadcastEnv) runStatus(t *testing.T, id string) map[string]any {
	t.Helper()
	rec := e.call(t, http.MethodGet, adminAPI+"/broadcasts/"+id, e.adminToken(t), "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	return decodeBody[map[string]any](t, rec)
}

const newsBody = `{"template":"announcement","subject":"Spring news","body_markdown":"Hello **you**","kind":"marketing"}`

func TestBroadcastAPIValidates(t *testing.T) {
	t.Parallel()
	e := newBroadcastEnv(t)
	boss := e.adminToken(t)
	for _, tc := range []struct {
		name, method, path, body string
		wantStatus               int
		wantCode                 string
	}{
		{"marketing bypassing consent", http.MethodPost, "/broadcasts", `{"template":"announcement","subject":"s","kind":"marketing","bypass_consent":true}`,
			http.StatusConflict, "consent_required"},
		{"unknown template", http.MethodPost, "/broadcasts", `{"template":"welcome","subject":"s","kind":"marketing"}`,
			http.StatusUnprocessableEntity, "unknown_template"},
		{"bad kind", http.MethodPost, "/broadcasts", `{"template":"announcement","subject":"s","kind":"spam"}`,
			http.StatusUnprocessableEntity, "validation_failed"},
		{"unknown tier", http.MethodPost, "/broadcasts", `{"template":"announcement","subject":"s","kind":"marketing","audience":{"tier":"gold"}}`,
			http.StatusUnprocessableEntity, "unknown_tier"},
		{"malformed", http.MethodPost, "/broadcasts", `{"template":`, http.StatusBadRequest, "bad_request"},
		{"unknown run", http.MethodGet, "/broadcasts/" + unknownID, "", http.StatusNotFound, "not_found"},
		{"malformed id", http.MethodGet, "/broadcasts/nope", "", http.StatusNotFound, "not_found"},
		{"send unknown run", http.MethodPost, "/broadcasts/" + unknownID + "/send", "", http.StatusNotFound, "not_found"},
		{"free-form announcement bypassing consent", http.MethodPost, "/broadcasts", `{"template":"announcement","subject":"Terms","kind":"transactional","bypass_consent":true}`,
			http.StatusConflict, "bypass_not_allowed"},
		{"free-form preview bypassing consent", http.MethodPost, "/broadcasts/preview", `{"template":"announcement","subject":"Terms","kind":"transactional","bypass_consent":true}`,
			http.StatusConflict, "bypass_not_allowed"},
		{"transactional on consent", http.MethodPost, "/broadcasts", `{"template":"announcement","subject":"Terms","kind":"transactional"}`,
			http.StatusCreated, ""},
		{"list", http.MethodGet, "/broadcasts?limit=10", "", http.StatusOK, ""},
	} {
		rec := e.call(t, tc.method, adminAPI+tc.path, boss, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
		if tc.wantCode != "" {
			require.Contains(t, rec.Body.String(), `"code":"`+tc.wantCode+`"`, tc.name)
		}
	}
	rec := e.call(t, http.MethodPost, adminAPI+"/broadcasts", boss, `{"template":"announcement","subject":"s","kind":"spam"}`)
	require.Contains(t, rec.Body.String(), "kind", "the message names the field")
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM broadcast_runs`))
	require.Zero(t, e.count(t, `SELECT count(*) FROM broadcast_runs WHERE bypass_consent`), "no free-form run bypasses consent")
}

// The acceptance path: compose (201), send twice on two server processes (202 each) while two more
// dispatchers race on the same run and both processes' workers run: every consenting user gets exactly one
// mail, with the unsubscribe headers, nobody else gets one, and the run finishes with its counts.
func TestBroadcastMailsEachConsentingUserExactlyOnce(t *testing.T) {
	t.Parallel()
	e := newBroadcastEnv(t)
	a2 := e.another(t)
	boss := e.adminToken(t)
	consenting := e.seed(t, "yes", 30, true)
	e.seed(t, "no", 10, false)

	rec := e.call(t, http.MethodPost, adminAPI+"/broadcasts", boss, newsBody)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	run := decodeBody[map[string]any](t, rec)
	id := run["id"].(string)
	require.Equal(t, "queued", run["status"])

	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, a := range []*App{e.app, a2} {
		wg.Go(func() {
			<-start
			r := e.call(t, http.MethodPost, adminAPI+"/broadcasts/"+id+"/send", boss, "")
			require.Equal(t, http.StatusAccepted, r.Code, r.Body.String())
		})
		wg.Go(func() {
			<-start
			require.NoError(t, a.broadcasts.Dispatch(context.Background(), uuid.MustParse(id)))
		})
	}
	close(start)
	wg.Wait()
	work(t, func() bool { return e.runStatus(t, id)["status"] == "finished" }, e.app, a2)

	msgs := e.sender.messages()
	require.Len(t, msgs, len(consenting))
	seen := map[string]bool{}
	for _, m := range msgs {
		require.False(t, seen[m.To], "mailed twice: %s", m.To)
		seen[m.To] = true
		require.True(t, strings.HasPrefix(m.To, "yes"), m.To)
		require.True(t, strings.HasPrefix(m.Headers["List-Unsubscribe"], "<https://api.test/api/v1/email/unsubscribe?t=v2."))
		require.Equal(t, "List-Unsubscribe=One-Click", m.Headers["List-Unsubscribe-Post"])
		require.True(t, strings.HasPrefix(m.IdempotencyKey, "broadcast/"+id+"/"))
	}
	got := e.runStatus(t, id)
	require.Equal(t, map[string]any{"pending": 0.0, "sent": 30.0, "skipped": 0.0, "failed": 0.0}, got["counts"])
	require.Equal(t, int64(30), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'email.sent' AND resource_id = ?`, id))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.queued' AND actor = 'admin:boss@example.com'`))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.finished' AND resource_id = ?`, id))

	// Sending a finished run again mails nobody.
	require.Equal(t, http.StatusAccepted, e.call(t, http.MethodPost, adminAPI+"/broadcasts/"+id+"/send", boss, "").Code)
	work(t, func() bool {
		return e.count(t, `SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')`) == 0
	}, e.app)
	require.Len(t, e.sender.messages(), len(consenting))
}

// A user who unsubscribes (the real one-click POST) after the run was queued and dispatched, but before
// the workers send, is skipped: the gate is at send time.
func TestBroadcastSkipsAUserWhoUnsubscribedAfterQueueing(t *testing.T) {
	t.Parallel()
	e := newBroadcastEnv(t)
	boss := e.adminToken(t)
	ids := e.seed(t, "u", 3, true)
	rec := e.call(t, http.MethodPost, adminAPI+"/broadcasts", boss, newsBody)
	require.Equal(t, http.StatusCreated, rec.Code)
	id := decodeBody[map[string]any](t, rec)["id"].(string)
	require.Equal(t, http.StatusAccepted, e.call(t, http.MethodPost, adminAPI+"/broadcasts/"+id+"/send", boss, "").Code)
	require.NoError(t, e.app.broadcasts.Dispatch(context.Background(), uuid.MustParse(id)))
	require.Equal(t, int64(3), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))

	link, err := url.Parse(e.app.accounts.UnsubscribeURL(ids[0]))
	require.NoError(t, err)
	un := e.call(t, http.MethodPost, link.Path+"?"+link.RawQuery, "", "")
	require.Equal(t, http.StatusOK, un.Code, un.Body.String())

	work(t, func() bool { return e.runStatus(t, id)["status"] == "finished" }, e.app)
	require.Len(t, e.sender.messages(), 2)
	for _, m := range e.sender.messages() {
		require.NotEqual(t, "u0@example.com", m.To)
	}
	require.Equal(t, map[string]any{"pending": 0.0, "sent": 2.0, "skipped": 1.0, "failed": 0.0}, e.runStatus(t, id)["counts"])
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'email.skipped' AND user_id = ?
		AND details->>'reason' = 'unsubscribed'`, ids[0]))
}

func TestEmailPreviewAPI(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	for _, name := range email.Templates() {
		rec := e.call(t, http.MethodGet, adminAPI+"/emails/"+name+"/preview", boss, "")
		require.Equal(t, http.StatusOK, rec.Code, name)
		p := decodeBody[map[string]string](t, rec)
		require.Equal(t, name, p["template"])
		require.NotEmpty(t, p["subject"], name)
		require.NotEmpty(t, p["text"], name)
		require.Contains(t, p["html"], "<html", name)
	}
	rec := e.call(t, http.MethodGet, adminAPI+"/emails/announcement/preview", boss, "")
	require.Contains(t, decodeBody[map[string]string](t, rec)["html"], "<strong>three things</strong>")
	rec = e.call(t, http.MethodGet, adminAPI+"/emails/nope/preview", boss, "")
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Contains(t, rec.Body.String(), `"code":"not_found"`)
}
