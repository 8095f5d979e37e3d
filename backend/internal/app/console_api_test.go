package app

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

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

// walkItems follows next_cursor through an admin list and returns every item.
func walkItems(t *testing.T, e *apiEnv, token, path string, limit int) []map[string]any {
	t.Helper()
	var items []map[string]any
	cursor := ""
	for page := 0; ; page++ {
		require.Less(t, page, 50, "pagination must end")
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		rec := e.call(t, http.MethodGet, fmt.Sprintf("%s%s%slimit=%d&cursor=%s", adminAPI, path, sep, limit, url.QueryEscape(cursor)), token, "")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		out := decodeBody[struct {
			Items      []map[string]any `json:"items"`
			NextCursor string           `json:"next_cursor"`
		}](t, rec)
		require.LessOrEqual(t, len(out.Items), limit)
		items = append(items, out.Items...)
		if out.NextCursor == "" {
			return items
		}
		cursor = out.NextCursor
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
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id)
		SELECT ?, 1, 'grant', 'g-' || n FROM generate_series(1, 60) n`, id).Error)

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
		{"/users/" + id, []string{"users_pkey", "ix_subscriptions_user_id", "ix_credit_transactions_user_id_created_at"}},
		{"/users/" + id + "/credits", []string{"ix_credit_transactions_user_id_created_at"}},
		{"/users/" + id + "/deliveries", []string{"ix_audit_logs_user_id_created_at", "provider_event_id"}},
		{"/audit?user_id=" + id, []string{"ix_audit_logs_user_id_created_at"}},
		{"/audit?action=user.created&since=" + since, []string{"ix_audit_logs_action_created_at"}},
		{"/webhook-events?since=" + since, []string{"pk"}},
		{"/webhook-events?status=failed&since=" + since, []string{"status_created_at"}},
		{"/webhook-events?provider=clerk&event_id=msg_idx", []string{"provider_event_id"}},
		{"/stats/deliveries?hours=24", []string{"pk"}},
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
