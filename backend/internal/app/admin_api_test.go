package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

const (
	unknownID = "00000000-0000-4000-8000-000000000000"
	adminAPI  = "/api/v1/admin"
)

// adminEndpoints is every admin route, with ids that name nothing.
var adminEndpoints = []struct{ method, path string }{
	{http.MethodGet, "/users"}, {http.MethodGet, "/users/" + unknownID}, {http.MethodGet, "/audit"},
	{http.MethodGet, "/webhook-events"}, {http.MethodGet, "/webhook-events/" + unknownID},
	{http.MethodPost, "/webhook-events/" + unknownID + "/replay"}, {http.MethodGet, "/stats"},
	{http.MethodGet, "/me"}, {http.MethodGet, "/users/" + unknownID + "/credits"},
	{http.MethodGet, "/users/" + unknownID + "/deliveries"}, {http.MethodGet, "/stats/deliveries"},
	{http.MethodGet, "/metrics/overview"}, {http.MethodPost, "/broadcasts"}, {http.MethodGet, "/broadcasts"},
	{http.MethodGet, "/broadcasts/" + unknownID}, {http.MethodPost, "/broadcasts/" + unknownID + "/send"},
	{http.MethodGet, "/emails/welcome/preview"}, {http.MethodPost, "/broadcasts/preview"},
	{http.MethodPost, "/users/" + unknownID + "/credits"}, {http.MethodGet, "/users/" + unknownID + "/credit-buckets"},
}

func TestAdminAPIRequiresASession(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	for _, ep := range adminEndpoints {
		for name, tok := range map[string]string{"none": "", "garbage": "abc.def.ghi"} {
			rec := e.call(t, ep.method, adminAPI+ep.path, tok, "")
			require.Equal(t, http.StatusUnauthorized, rec.Code, "%s %s with %s token", ep.method, ep.path, name)
			require.Contains(t, rec.Body.String(), `"code":"unauthorized"`)
		}
	}
	require.Zero(t, e.count(t, `SELECT count(*) FROM users`)+e.count(t, `SELECT count(*) FROM audit_logs`))
}

// Every refused request is a 403; each refused user gets one admin.unauthorized row a minute (docs/security.md,
// "refused admin requests growing the audit trail"), naming the path of the first refusal, never a query.
func TestAdminAPIRefusesNonAdmins(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	tokens := map[string]string{
		"stranger":  e.token(t, "user_stranger"),
		"lookalike": e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_look", Email: "boss@example.com.evil.test"}),
		"no email":  e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_anon"}),
		// U+212A KELVIN SIGN folds to "k" under Unicode rules; the gate folds ASCII only.
		"kelvin": e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_kelvin", Email: "kate@example.com", EmailVerified: true}),
	}
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, adminAPI+"/stats", tokens["kelvin"], "").Code, "kate@ is an admin")
	require.NoError(t, e.db.Gorm.Exec(`UPDATE users SET email = ? WHERE clerk_user_id = 'user_kelvin'`, "\u212Aate@example.com").Error)
	var users int64
	for name, tok := range tokens {
		users++
		for _, ep := range adminEndpoints {
			rec := e.call(t, ep.method, adminAPI+ep.path+"?query=secret@example.com", tok, "")
			require.Equal(t, http.StatusForbidden, rec.Code, "%s: %s %s", name, ep.method, ep.path)
			require.Contains(t, rec.Body.String(), `"code":"forbidden"`)
			require.Equal(t, users, e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.unauthorized'`), "one row per user a minute")
		}
	}
	first := adminEndpoints[0]
	require.Equal(t, users, e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.unauthorized'
		AND details = jsonb_build_object('method', ?::text, 'path', ?::text)`, first.method, adminAPI+first.path))
	require.Equal(t, users, e.count(t, `SELECT count(*) FROM audit_logs`), "refusals write nothing else")
}

func TestAdminAPI(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	e.subscribe(t, "user_pro", "active", "pro")
	for n := range 60 {
		e.grant(t, "user_pro", 1000, fmt.Sprintf("g-%d", n+1))
	}
	// An add-on first, then the plan, as a Paddle snapshot would have stored them.
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO subscription_items (subscription_id, position, price_id, quantity,
		unit_amount, currency, billing_interval, billing_frequency, recurring, status, tiered)
		SELECT id, 0, 'pri_storage', 2, 1000, 'USD', 'month', 1, true, 'active', false FROM subscriptions
		UNION ALL SELECT id, 1, 'pri_pro_monthly', 1, 1500, 'USD', 'month', 1, true, 'active', true FROM subscriptions`).Error)
	var pro string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_pro'`).Scan(&pro).Error)

	for _, tc := range []struct {
		name, method, path, token, body string
		wantStatus                      int
		wantCode                        string
	}{
		{"users", http.MethodGet, "/users", boss, "", http.StatusOK, ""},
		{"user", http.MethodGet, "/users/" + pro, boss, "", http.StatusOK, ""},
		{"unknown user", http.MethodGet, "/users/" + unknownID, boss, "", http.StatusNotFound, "not_found"},
		{"malformed user id", http.MethodGet, "/users/42", boss, "", http.StatusNotFound, "not_found"},
		{"audit", http.MethodGet, "/audit?action=x&since=2026-01-01T00:00:00Z&user_id=" + pro, boss, "", http.StatusOK, ""},
		{"audit bad user_id", http.MethodGet, "/audit?user_id=42", boss, "", http.StatusBadRequest, "bad_request"},
		{"audit bad since", http.MethodGet, "/audit?since=yesterday", boss, "", http.StatusBadRequest, "bad_request"},
		{"bad cursor", http.MethodGet, "/users?cursor=garbage", boss, "", http.StatusBadRequest, "bad_request"},
		{"bad limit", http.MethodGet, "/users?limit=ten", boss, "", http.StatusBadRequest, "bad_request"},
		{"webhook events", http.MethodGet, "/webhook-events?provider=paddle&status=failed", boss, "", http.StatusOK, ""},
		{"unknown webhook event", http.MethodGet, "/webhook-events/" + unknownID, boss, "", http.StatusNotFound, "not_found"},
		{"malformed webhook event id", http.MethodGet, "/webhook-events/evt_1", boss, "", http.StatusNotFound, "not_found"},
		{"replay unknown", http.MethodPost, "/webhook-events/" + unknownID + "/replay", boss, "", http.StatusNotFound, "not_found"},
		{"stats", http.MethodGet, "/stats", boss, "", http.StatusOK, ""},
		{"unknown admin route", http.MethodGet, "/nope", boss, "", http.StatusNotFound, "not_found"},
	} {
		rec := e.call(t, tc.method, adminAPI+tc.path, tc.token, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
		if tc.wantCode != "" {
			require.Contains(t, rec.Body.String(), `"code":"`+tc.wantCode+`"`, tc.name)
		}
	}

	detail := decodeBody[struct {
		User          map[string]any   `json:"user"`
		Subscriptions []map[string]any `json:"subscriptions"`
		Ledger        struct {
			Balance int              `json:"balance"`
			Items   []map[string]any `json:"items"`
		} `json:"ledger"`
	}](t, e.call(t, http.MethodGet, adminAPI+"/users/"+pro, boss, ""))
	require.Equal(t, "user_pro@example.com", detail.User["email"])
	require.Len(t, detail.Subscriptions, 1)
	require.Equal(t, "sub_user_pro", detail.Subscriptions[0]["id"])
	require.Equal(t, "ctm_user_pro", detail.Subscriptions[0]["paddle_customer_id"])
	items, _ := json.Marshal(detail.Subscriptions[0]["items"])
	require.JSONEq(t, `[
		{"price_id":"pri_storage","product_id":"","quantity":2,"unit_amount":1000,"currency":"USD","billing_interval":"month",
		 "billing_frequency":1,"recurring":true,"status":"active","tiered":false},
		{"price_id":"pri_pro_monthly","product_id":"","quantity":1,"unit_amount":1500,"currency":"USD","billing_interval":"month",
		 "billing_frequency":1,"recurring":true,"status":"active","tiered":true}]`, string(items))
	require.Equal(t, 60_000, detail.Ledger.Balance, "the balance covers every movement")
	require.Len(t, detail.Ledger.Items, 50, "only the newest 50 movements")

	// The gate reads the stored e-mail on every request, in any case.
	require.NoError(t, e.db.Gorm.Exec(`UPDATE users SET email = 'BOSS@EXAMPLE.COM' WHERE clerk_user_id = 'user_boss'`).Error)
	rec := e.call(t, http.MethodGet, adminAPI+"/stats", boss, "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"total":2,"deleted":0}`, string(decodeBody[map[string]json.RawMessage](t, rec)["users"]))
	require.Contains(t, rec.Body.String(), `"subscriptions":[{"tier":"pro","status":"active","count":1}]`)
	require.Zero(t, e.count(t, `SELECT count(*) FROM audit_logs WHERE action LIKE 'admin.%'`), "reads are not audited")
}

// walk pages through an admin list with the given page size and returns the ids in order.
func walk(t *testing.T, e *apiEnv, token, path string, limit int) []string {
	t.Helper()
	var ids []string
	for _, it := range walkItems(t, e, token, path, limit) {
		require.NotContains(t, it, "payload", "lists never carry payloads")
		ids = append(ids, it["id"].(string))
	}
	return ids
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

func TestAdminListsFilterAndPaginate(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	// One statement: every row shares created_at, so only the id orders them and the cursor must use it.
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO users (clerk_user_id, email)
		SELECT 'user_page' || n, 'Page' || n || '@example.com' FROM generate_series(1, 7) n`).Error)
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO users (clerk_user_id, email) VALUES ('user_x', 'x_y@example.com')`).Error)
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO audit_logs (actor, action, user_id)
		SELECT 'test', CASE WHEN n % 2 = 0 THEN 'test.even' ELSE 'test.odd' END, (SELECT id FROM users WHERE clerk_user_id = 'user_page1')
		FROM generate_series(1, 11) n`).Error)
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO webhook_events (provider, event_id, event_type, body, processing_status, created_at)
		SELECT CASE WHEN n <= 9 THEN 'paddle' ELSE 'clerk' END, 'evt_' || n, 'subscription.updated', '{}',
		       CASE WHEN n % 3 = 0 THEN 'processed' ELSE 'failed' END, now() - n * interval '1 hour'
		FROM generate_series(1, 12) n`).Error)
	claimProcessed(t, e.db)
	var page1 string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_page1'`).Scan(&page1).Error)

	for _, tc := range []struct {
		name, path string
		limit      int
		want       int64
		sql        string
	}{
		{"users by query", "/users?query=PAGE", 3, 7, `SELECT count(*) FROM users WHERE email ILIKE 'page%'`},
		{"users by clerk id", "/users?query=user_page", 2, 7, `SELECT 7`},
		{"like wildcards are literal", "/users?query=x_", 1, 1, `SELECT 1`},
		{"all users", "/users?query=", 100, 9, `SELECT count(*) FROM users`},
		{"audit by action", "/audit?action=test.odd", 2, 6, `SELECT 6`},
		{"audit by user", "/audit?user_id=" + page1, 4, 11, `SELECT 11`},
		{"audit since", "/audit?since=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), 5, 0, `SELECT 0`},
		{"failed paddle deliveries", "/webhook-events?provider=PADDLE&status=failed", 2, 6, `SELECT 6`},
		{"deliveries since", "/webhook-events?type=subscription.updated&since=" +
			url.QueryEscape(time.Now().Add(-150*time.Minute).Format(time.RFC3339)), 1, 2, `SELECT 2`},
	} {
		ids := walk(t, e, boss, tc.path, tc.limit)
		require.Len(t, ids, int(tc.want), tc.name)
		require.Equal(t, tc.want, e.count(t, tc.sql), tc.name)
		seen := map[string]bool{}
		for _, id := range ids {
			require.False(t, seen[id], "%s: %s twice", tc.name, id)
			seen[id] = true
		}
	}
	all := walk(t, e, boss, "/webhook-events?provider=paddle", 4)
	require.Equal(t, walk(t, e, boss, "/webhook-events?provider=paddle", 100), all, "pages concatenate to the one-page list")
}

// paddleDelivery builds a signed Paddle subscription event for sub_late (customer ctm_late).
func paddleDelivery(t *testing.T, eventID, typ, status string, occurred time.Time, customData map[string]any) (http.Header, []byte) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"event_id": eventID, "event_type": typ, "occurred_at": occurred, "data": map[string]any{
		"id": "sub_late", "status": status, "customer_id": "ctm_late", "custom_data": customData,
		"current_billing_period": map[string]any{"starts_at": occurred, "ends_at": occurred.AddDate(0, 1, 0)},
		"items":                  []any{map[string]any{"price": map[string]any{"id": "pri_pro_monthly"}}},
	}})
	require.NoError(t, err)
	h := http.Header{}
	h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(config.DevPaddleWebhookSecret, time.Now(), body))
	return h, body
}

// Paddle delivers subscription.updated before subscription.created: the update names no user we know, so
// it fails. Once created has arrived, an operator replays the failed delivery: it processes exactly once.
func TestAdminReplaysAFailedDeliveryOnce(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	t0 := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	upH, upBody := paddleDelivery(t, "evt_updated", "subscription.updated", "past_due", t0.Add(time.Minute), nil)
	rec := deliver(e.app.Echo(), webhook.ProviderPaddle, upH, upBody)
	require.Equal(t, http.StatusInternalServerError, rec.Code, rec.Body.String())

	failed := walk(t, e, boss, "/webhook-events?provider=paddle&status=failed", 10)
	require.Len(t, failed, 1)
	rec = e.call(t, http.MethodGet, adminAPI+"/webhook-events/"+failed[0], boss, "")
	require.Equal(t, http.StatusOK, rec.Code)
	view := decodeBody[map[string]any](t, rec)
	require.Equal(t, "evt_updated", view["payload"].(map[string]any)["event_id"], "the payload is raw JSON")
	require.Equal(t, true, view["has_signature"])
	require.NotContains(t, view, "signature")
	sig := upH.Get(webhook.PaddleSignatureHeader)
	require.NotContains(t, rec.Body.String(), sig[strings.Index(sig, "h1=")+3:], "never the signature value")

	signer := billing.NewCheckoutSigner(e.app.cfg.CheckoutSigningSecret)
	cd := map[string]any{"clerk_user_id": "user_late", "email": "late@example.com",
		"checkout_sig": signer.Sign("user_late", "late@example.com", t0.Add(-time.Minute))}
	crH, crBody := paddleDelivery(t, "evt_created", "subscription.created", "active", t0, cd)
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderPaddle, crH, crBody).Code)

	replay := adminAPI + "/webhook-events/" + failed[0] + "/replay"
	rec = e.call(t, http.MethodPost, replay, boss, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String()+" (needs app.go: admin.New(a.db, a.pipeline, a.billing, a.ledger))")
	require.JSONEq(t, `{"event_id":"evt_updated","status":"processed","replay_of":"`+failed[0]+`"}`, rec.Body.String())
	rec = e.call(t, http.MethodPost, replay, boss, "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"event_id":"evt_updated","status":"skipped","replay_of":"`+failed[0]+`"}`, rec.Body.String())

	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM subscriptions WHERE paddle_subscription_id = 'sub_late' AND status = 'past_due'`))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'subscription.updated'`), "effects once")
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM webhook_events WHERE replay_of = ?`, failed[0]))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.webhook_replayed'
		AND details = jsonb_build_object('webhook_event_id', ?::text, 'result_status', 'processed')`, failed[0]))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.webhook_replayed'
		AND details = jsonb_build_object('webhook_event_id', ?::text, 'result_status', 'skipped')`, failed[0]))

	var processed string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM webhook_events WHERE event_id = 'evt_created'`).Scan(&processed).Error)
	rec = e.call(t, http.MethodPost, adminAPI+"/webhook-events/"+processed+"/replay", boss, "")
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Contains(t, rec.Body.String(), `"code":"not_replayable"`)
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.webhook_replayed'`),
		"a refused replay did nothing, so it is not audited")

	rec = e.call(t, http.MethodGet, adminAPI+"/stats", boss, "")
	require.JSONEq(t, `[{"provider":"paddle","status":"failed","count":1},{"provider":"paddle","status":"processed","count":2},
		{"provider":"paddle","status":"skipped","count":1}]`, string(decodeBody[map[string]json.RawMessage](t, rec)["webhook_deliveries_24h"]))
}

// A delivery whose handler fails again on replay is answered 200 with status failed: the replay ran, and
// its own archive row records the error. (A user event without a user is a permanent failure: the delivery
// itself is answered 200 with the reason, so Svix stops retrying it.)
func TestAdminReplayThatFailsAgain(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	boss := e.adminToken(t)
	body := []byte(`{"type":"user.created","object":"event","timestamp":1700000000000,"data":{"object":"user"}}`)
	h, err := webhook.SignSvix(config.DevClerkWebhookSecret, "msg_noid", time.Now(), body)
	require.NoError(t, err)
	rec := deliver(e.app.Echo(), webhook.ProviderClerk, h, body)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"event_id":"msg_noid","failed":true,"reason":"unprocessable_payload"}`, rec.Body.String())
	failed := walk(t, e, boss, "/webhook-events?provider=clerk&status=failed", 10)
	require.Len(t, failed, 1)

	rec = e.call(t, http.MethodPost, adminAPI+"/webhook-events/"+failed[0]+"/replay", boss, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"event_id":"msg_noid","status":"failed","replay_of":"`+failed[0]+`"}`, rec.Body.String())
	require.Zero(t, e.count(t, `SELECT count(*) FROM processed_webhook_events`), "no claim survives a failure")
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.webhook_replayed'`))
}
