package app

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The admin reads the operator console adds: the gate, exact user lookups, a user's ledger and deliveries,
// deliveries per hour.

func TestConsoleGateNamesTheOperator(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	rec := e.call(t, http.MethodGet, adminAPI+"/me", e.adminToken(t), "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	me := decodeBody[map[string]any](t, rec)
	require.Equal(t, "boss@example.com", me["email"])
	require.Equal(t, "user_boss", me["clerk_user_id"])
	rec = e.call(t, http.MethodGet, adminAPI+"/me", e.token(t, "user_stranger"), "")
	require.Equal(t, http.StatusForbidden, rec.Code)
}

// email= and clerk_user_id= match whole values (the email case-insensitively), soft-deleted users included;
// query= keeps its substring meaning.
func TestAdminUserLookupsAreExact(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO users (clerk_user_id, email, deleted_at) VALUES
		('user_ann', 'ann@example.com', NULL), ('user_anne', 'anne@example.com', NULL),
		('user_gone', 'gone@example.com', now())`).Error)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"email=ANN@example.com", []string{"user_ann"}},
		{"email=gone@example.com", []string{"user_gone"}},
		{"email=ann", nil},
		{"clerk_user_id=user_ann", []string{"user_ann"}},
		{"clerk_user_id=USER_ANN", nil},
		{"clerk_user_id=user_ann&email=anne@example.com", nil},
		{"query=ann", []string{"user_ann", "user_anne"}},
	} {
		rec := e.call(t, http.MethodGet, adminAPI+"/users?"+tc.query, boss, "")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var got []string
		for _, u := range decodeBody[struct {
			Items []map[string]any `json:"items"`
		}](t, rec).Items {
			got = append(got, u["clerk_user_id"].(string))
		}
		require.ElementsMatch(t, tc.want, got, tc.query)
	}
}

func TestAdminUserLedgerAndDeliveriesPage(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	now := time.Now().UnixMilli()
	for i, id := range []string{"user_ledger", "user_other"} {
		h, body := clerkEvent(t, fmt.Sprintf("msg_created_%d", i), "user.created", id, id+"@example.com", now)
		require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderClerk, h, body).Code)
	}
	b := triggerBuilder(t, e.app)
	d, err := b.Build(trigger.Spec{Provider: "paddle", Event: "subscription.created", User: "user_ledger", EventID: "evt_ledger_sub"})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderPaddle, d.Header, d.Body).Code)
	var id string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_ledger'`).Scan(&id).Error)
	for n := range 60 {
		e.grant(t, "user_ledger", 1, fmt.Sprintf("g-%d", n+1))
	}

	ledger := walkItems(t, e, boss, "/users/"+id+"/credits", 25)
	require.Len(t, ledger, 62, "60 grants, the signup grant and the subscription's")
	seen := map[any]bool{}
	for _, m := range ledger {
		require.False(t, seen[m["id"]])
		seen[m["id"]] = true
	}

	deliveries := walkItems(t, e, boss, "/users/"+id+"/deliveries", 1)
	var got []string
	for _, it := range deliveries {
		got = append(got, it["provider"].(string)+" "+it["action"].(string)+" "+it["event_id"].(string))
		require.Equal(t, "processed", it["delivery"].(map[string]any)["processing_status"], it["event_id"])
	}
	require.Equal(t, []string{"paddle subscription.created evt_ledger_sub", "clerk user.created msg_created_0"}, got,
		"newest first, only this user's")

	for _, path := range []string{"/users/" + unknownID + "/credits", "/users/" + unknownID + "/deliveries", "/users/nope/credits"} {
		rec := e.call(t, http.MethodGet, adminAPI+path, boss, "")
		if strings.HasSuffix(path, "/deliveries") {
			require.Equal(t, http.StatusOK, rec.Code, "no audit rows: an empty page")
			require.JSONEq(t, `{"items":[]}`, rec.Body.String())
			continue
		}
		require.Equal(t, http.StatusNotFound, rec.Code, path)
	}
}

func TestAdminDeliveriesPerHour(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	// Two hours ago, one hour ago (twice, one of them failed, one from clerk), now, and one outside the window.
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO webhook_events (provider, event_id, event_type, body, processing_status, created_at)
		VALUES ('paddle', 'e1', 't', '{}', 'processed', date_trunc('hour', now()) - interval '2 hours' + interval '1 minute'),
		       ('paddle', 'e2', 't', '{}', 'failed',    date_trunc('hour', now()) - interval '1 hour'),
		       ('clerk',  'e3', 't', '{}', 'processed', date_trunc('hour', now()) - interval '1 hour' + interval '59 minutes'),
		       ('paddle', 'e4', 't', '{}', 'processed', now()),
		       ('paddle', 'e5', 't', '{}', 'processed', date_trunc('hour', now()) - interval '3 hours')`).Error)
	claimProcessed(t, e.db)
	get := func(q string) []map[string]any {
		rec := e.call(t, http.MethodGet, adminAPI+"/stats/deliveries"+q, boss, "")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		out := decodeBody[struct {
			Since string           `json:"since"`
			Hours []map[string]any `json:"hours"`
		}](t, rec)
		return out.Hours
	}
	hours := get("?hours=3")
	require.Len(t, hours, 3)
	counts := func(h map[string]any) string { return fmt.Sprint(h["total"], " ", h["counts"]) }
	require.Equal(t, "1 map[processed:1]", counts(hours[0]))
	require.Equal(t, "2 map[failed:1 processed:1]", counts(hours[1]))
	require.Equal(t, "1 map[processed:1]", counts(hours[2]))
	hours = get("?hours=3&provider=PADDLE")
	require.Equal(t, "1 map[failed:1]", counts(hours[1]))
	require.Len(t, get(""), 24, "a day by default")
	require.Len(t, get("?hours=100000"), 168, "a week at most")
	require.Equal(t, http.StatusBadRequest, e.call(t, http.MethodGet, adminAPI+"/stats/deliveries?hours=x", boss, "").Code)
}

// statements records the SQL the App's GORM pool runs (queries and raw reads), with its arguments bound.
type statements struct {
	mu  sync.Mutex
	sql []string
}

func recordStatements(t *testing.T, db *gorm.DB) *statements {
	t.Helper()
	s := &statements{}
	record := func(d *gorm.DB) {
		if d.Statement.SQL.Len() == 0 {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sql = append(s.sql, d.Dialector.Explain(d.Statement.SQL.String(), d.Statement.Vars...))
	}
	require.NoError(t, db.Callback().Query().After("gorm:query").Register("test:record", record))
	require.NoError(t, db.Callback().Row().After("gorm:row").Register("test:record", record))
	return s
}

func (s *statements) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.sql
	s.sql = nil
	return out
}

// Every read behind the console's pages is served by an index. With sequential scans priced out, Postgres
// plans one only when no index can serve the query; each read must also use the index meant for it (an
// index walk with a filter would read the whole table too). The substring search (query=) is the one read
// that cannot, and the console does not use it.
func TestConsoleReadsUseAnIndex(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	h, body := clerkEvent(t, "msg_idx", "user.created", "user_idx", "idx@example.com", time.Now().UnixMilli())
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderClerk, h, body).Code)
	var id string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_idx'`).Scan(&id).Error)
	since := url.QueryEscape(time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339))
	rec := recordStatements(t, e.app.db)
	for _, tc := range []struct {
		path  string
		index []string // each must appear in the plans of the path's statements
	}{
		{"/me", []string{"uq_users_clerk_user_id"}},
		{"/users?email=IDX@example.com", []string{"ix_users_email"}},
		{"/users?clerk_user_id=user_idx", []string{"uq_users_clerk_user_id"}},
		{"/users/" + id, []string{"users_pkey", "ix_subscriptions_user_id", "ix_credit_transactions_user_id_created_at",
			"ix_credit_buckets_user_id"}},
		{"/users/" + id + "/credits", []string{"ix_credit_transactions_user_id_created_at"}},
		{"/users/" + id + "/credit-buckets", []string{"ix_credit_buckets_user_id"}},
		{"/users/" + id + "/deliveries", []string{"ix_audit_logs_user_id_created_at", "provider_event_id"}},
		{"/audit?user_id=" + id, []string{"ix_audit_logs_user_id_created_at"}},
		{"/audit?action=user.created&since=" + since, []string{"ix_audit_logs_action_created_at"}},
		{"/webhook-events?since=" + since, []string{"pk"}},
		{"/webhook-events?status=failed&since=" + since, []string{"status_created_at"}},
		{"/webhook-events?provider=clerk&event_id=msg_idx", []string{"provider_event_id"}},
		{"/stats/deliveries?hours=24", []string{"pk"}},
		{"/users/" + id + "/usage", []string{"pk_usage_counters"}},
		{"/usage/nearest-limits", []string{"ix_usage_counters_period_end"}},
	} {
		rec.take()
		resp := e.call(t, http.MethodGet, adminAPI+tc.path, boss, "")
		require.Equal(t, http.StatusOK, resp.Code, tc.path+": "+resp.Body.String())
		plans := ""
		for _, q := range rec.take() {
			plans += explain(t, e, q) + "\n"
		}
		require.NotContains(t, plans, "Seq Scan", "%s:\n%s", tc.path, plans)
		for _, ix := range tc.index {
			require.Contains(t, plans, ix, "%s:\n%s", tc.path, plans)
		}
	}
}

// explain plans q with sequential scans priced out, on a connection of the test's own pool.
func explain(t *testing.T, e *apiEnv, q string) string {
	t.Helper()
	var plan []string
	err := e.db.Gorm.Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SET LOCAL enable_seqscan = off`).Error; err != nil {
			return err
		}
		return tx.Raw(`EXPLAIN ` + q).Scan(&plan).Error
	})
	require.NoError(t, err, q)
	return q + "\n" + strings.Join(plan, "\n")
}

// The console's files are public and carry their own policy (no inline script, our origin only); the other
// security headers stay; the files revalidate with their ETag.
func TestConsoleIsServedWithItsOwnPolicy(t *testing.T) {
	t.Parallel()
	a, _ := testApp(t, nil)
	rec := get(a.Echo(), "/console")
	require.Equal(t, http.StatusMovedPermanently, rec.Code)
	require.Equal(t, "/console/", rec.Header().Get("Location"))

	rec = get(a.Echo(), "/console/")
	require.Equal(t, http.StatusOK, rec.Code)
	h := rec.Header()
	require.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	require.Equal(t, "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; "+
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'", h.Get("Content-Security-Policy"))
	require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	require.Equal(t, "DENY", h.Get("X-Frame-Options"))
	require.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
	require.Equal(t, "no-cache", h.Get("Cache-Control"))
	require.NotEmpty(t, h.Get("ETag"))
	require.Equal(t, http.StatusNotModified, getWith(a.Echo(), "/console/", map[string]string{"If-None-Match": h.Get("ETag")}).Code)

	rec = get(a.Echo(), "/console/js/main.js")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Header().Get("Content-Type"), "javascript")
	rec = get(a.Echo(), "/console/js/nope.js")
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Contains(t, rec.Body.String(), `"code":"not_found"`)
	// The API keeps its own policy.
	require.Equal(t, "default-src 'none'; frame-ancestors 'none'", get(a.Echo(), "/health").Header().Get("Content-Security-Policy"))
}

// The console's paste-a-dev-token sign-in is offered in development only, and a dev token is refused by the
// admin API anywhere else; with a publishable key the Clerk Frontend API is the one origin added to the CSP.
func TestConsoleDevSignInIsDevelopmentOnly(t *testing.T) {
	t.Parallel()
	d := newAdminEnv(t).db
	dir := t.TempDir()
	devKey, err := devauth.LoadOrCreateKey(filepath.Join(dir, "dev.pem"))
	require.NoError(t, err)
	tok, err := devauth.Token(devKey, devauth.Claims{UserID: devauth.DefaultAdminUserID, Email: config.DevAdminEmail,
		TTL: time.Minute}, time.Now())
	require.NoError(t, err)
	settings := func(a *App) map[string]any {
		rec := get(a.Echo(), "/console/settings.json")
		require.Equal(t, http.StatusOK, rec.Code)
		return decodeBody[map[string]any](t, rec)
	}
	gate := func(a *App) int {
		return getWith(a.Echo(), adminAPI+"/me", map[string]string{"Authorization": "Bearer " + tok}).Code
	}

	env := productionEnv(sessiontest.NewIssuer(t))
	env["ADMIN_EMAILS"] = config.DevAdminEmail
	env["CLERK_PUBLISHABLE_KEY"] = "pk_live_" + base64.RawStdEncoding.EncodeToString([]byte("clerk.example.com$"))
	prod := appOn(t, d, env, Options{})
	s := settings(prod)
	require.Equal(t, false, s["dev_sign_in"])
	require.Equal(t, "https://clerk.example.com/npm/@clerk/clerk-js@5/dist/clerk.browser.js", s["clerk"].(map[string]any)["script"])
	require.Equal(t, []any{"clerk", "paddle"}, s["providers"])
	require.Contains(t, get(prod.Echo(), "/console/").Header().Get("Content-Security-Policy"),
		"script-src 'self' https://clerk.example.com; connect-src 'self' https://clerk.example.com;")
	require.Equal(t, http.StatusUnauthorized, gate(prod), "a dev token is a forged token in production")

	dev := appOn(t, d, map[string]string{"APP_ENV": "development", "DEV_SESSION_KEY_FILE": filepath.Join(dir, "dev.pem")}, Options{})
	require.Equal(t, true, settings(dev)["dev_sign_in"])
	require.Nil(t, settings(dev)["clerk"])
	require.Equal(t, http.StatusOK, gate(dev), "development: the dev admin is an operator")

	env["CLERK_PUBLISHABLE_KEY"] = "pk_live_bm90IGEgaG9zdA"
	cfg, err := config.Load(func(k string) string {
		if k == "DATABASE_URL" {
			return d.URL
		}
		return env[k]
	}, "")
	require.NoError(t, err)
	_, err = New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	require.ErrorContains(t, err, "config: CLERK_PUBLISHABLE_KEY: not a Clerk publishable key")
}

// The console previews a draft before it is stored: rendered as a send would (the footer's unsubscribe link
// only where consent gates the run), validated as create would, and nothing written.
func TestBroadcastDraftPreview(t *testing.T) {
	t.Parallel()
	e := newBroadcastEnv(t)
	boss := e.adminToken(t)
	rec := e.call(t, http.MethodPost, adminAPI+"/broadcasts/preview", boss,
		`{"template":"announcement","subject":" Spring news ","body_markdown":"Hello **you** <script>x()</script>","kind":"marketing"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	p := decodeBody[map[string]string](t, rec)
	require.Equal(t, "Spring news", p["subject"])
	require.Contains(t, p["html"], "<strong>you</strong>")
	require.NotContains(t, p["html"], "<script>")
	require.Contains(t, p["text"], email.SampleUnsubscribeURL)
	rec = e.call(t, http.MethodPost, adminAPI+"/broadcasts/preview", boss,
		`{"template":"announcement","subject":"Terms","kind":"transactional"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), email.SampleUnsubscribeURL, "transactional mail on consent carries the link too")
	rec = e.call(t, http.MethodPost, adminAPI+"/broadcasts/preview", boss, `{"template":"announcement","subject":"","kind":"marketing"}`)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	require.Contains(t, rec.Body.String(), "subject")
	require.Zero(t, e.count(t, `SELECT count(*) FROM broadcast_runs`))
	require.Zero(t, e.count(t, `SELECT count(*) FROM audit_logs WHERE action LIKE 'broadcast.%'`))
}
