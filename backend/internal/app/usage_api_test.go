package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

// usageTiers gives each kind of feature to the API tests.
const usageTiers = `tiers:
  - name: free
    signup_credits: 25
    low_balance: 5
    features:
      api_calls: {limit: 100, per: month}
      generations: {credits: 5, client_reportable: true}
      projects: {limit: 3, client_reportable: true}
  - name: pro
    paddle_price_ids: [pri_pro_monthly]
    features:
      api_calls: {limit: 1000, per: month, overage: allow}
      generations: {credits: 5}
      projects: {limit: 50}
      sso: true
`

// newUsageEnv is newAPIEnv with usageTiers, on db (a fresh one when nil): two of them on one database are
// two instances of the app.
func newUsageEnv(t *testing.T, d *pgtest.DB, issuer *sessiontest.Issuer) *apiEnv {
	t.Helper()
	if d == nil {
		d = pgtest.New(t)
	}
	if issuer == nil {
		issuer = sessiontest.NewIssuer(t)
	}
	tiers := filepath.Join(t.TempDir(), "tiers.yaml")
	require.NoError(t, os.WriteFile(tiers, []byte(usageTiers), 0o600))
	e := &apiEnv{db: d, issuer: issuer, paddle: &fakePaddle{}}
	e.app = appOn(t, d, map[string]string{"CLERK_JWT_KEY": issuer.PublicKeyPEM(), "TIERS_FILE": tiers,
		"WORKER_API_KEYS": workerKey}, Options{PaddleAPI: e.paddle})
	return e
}

func usageBody(events ...string) string { return `{"events":[` + strings.Join(events, ",") + `]}` }

func usageEvent(userID, feature string, quantity int, key string) string {
	if userID == "" {
		return fmt.Sprintf(`{"feature":%q,"quantity":%d,"idempotency_key":%q}`, feature, quantity, key)
	}
	return fmt.Sprintf(`{"user_id":%q,"feature":%q,"quantity":%d,"idempotency_key":%q}`, userID, feature, quantity, key)
}

func TestUsageAPI(t *testing.T) {
	t.Parallel()
	e := newUsageEnv(t, nil, nil)
	e.seedCredits(t, "user_ann", 12)
	ann, annID := e.token(t, "user_ann"), e.userID(t, "user_ann")
	const worker = workerKey

	// Steps run in order against one database.
	for _, tc := range []struct {
		name, method, path, token, body string
		wantStatus                      int
		wantCode                        string
		wantIn                          []string
	}{
		{"entitlements without a session", "GET", "/api/v1/entitlements", "", "", 401, "unauthorized", nil},
		{"entitlements", "GET", "/api/v1/entitlements", ann, "", 200, "", []string{
			`{"feature":"api_calls","kind":"counter","enabled":true,"limit":100,"overage":"block","used":0,"remaining":100,`,
			`"feature":"generations","kind":"credits","enabled":true,"limit":null,"overage":null,"used":0,"remaining":2,`,
			`{"feature":"sso","kind":"switch","enabled":false,"limit":null,"overage":null,"used":0,"remaining":null,"resets_at":null,`}},
		{"a worker records for ann", "POST", "/api/v1/usage", worker, usageBody(usageEvent(annID, "api_calls", 60, "r1")), 200, "",
			[]string{`"status":"recorded"`, `"used":60,"limit":100,"remaining":40`}},
		{"the same again is a duplicate", "POST", "/api/v1/usage", worker, usageBody(usageEvent(annID, "api_calls", 60, "r1")), 200, "",
			[]string{`"status":"duplicate"`, `"used":60`}},
		{"past the block limit", "POST", "/api/v1/usage", worker, usageBody(usageEvent(annID, "api_calls", 41, "r2")), 200, "",
			[]string{`"status":"limit_exceeded"`, `"event_id":null`}},
		{"a switch is not recorded", "POST", "/api/v1/usage", worker, usageBody(usageEvent(annID, "sso", 1, "r3")), 422, "validation_failed", nil},
		{"an unknown feature", "POST", "/api/v1/usage", worker, usageBody(usageEvent(annID, "nope", 1, "r3")), 422, "validation_failed",
			[]string{"events[0].feature"}},
		{"a worker must name the user", "POST", "/api/v1/usage", worker, usageBody(usageEvent("", "api_calls", 1, "r3")), 422, "validation_failed", nil},
		{"no events", "POST", "/api/v1/usage", worker, `{"events":[]}`, 422, "validation_failed", nil},
		{"a session reports a client_reportable feature", "POST", "/api/v1/usage", ann, usageBody(usageEvent("", "generations", 2, "g1")), 200, "",
			[]string{`"status":"recorded"`, `"charged":10,"balance":2`}},
		{"then its balance is short", "POST", "/api/v1/usage", ann, usageBody(usageEvent("", "generations", 1, "g2")), 200, "",
			[]string{`"status":"insufficient_credits"`, `"balance":2`}},
		{"a session may not report api_calls", "POST", "/api/v1/usage", ann, usageBody(usageEvent("", "api_calls", 1, "s1")), 403, "forbidden", nil},
		{"a session may not name a user", "POST", "/api/v1/usage", ann, usageBody(usageEvent(annID, "generations", 1, "s2")), 422, "validation_failed", nil},
		{"check for ann by a worker", "POST", "/api/v1/entitlements/check", worker, fmt.Sprintf(`{"user_id":%q,"feature":"api_calls","quantity":40}`, annID), 200, "",
			[]string{`{"allowed":true,"remaining":0,"reason":""}`}},
		{"check by her session", "POST", "/api/v1/entitlements/check", ann, `{"feature":"api_calls","quantity":41}`, 200, "",
			[]string{`{"allowed":false,"remaining":40,"reason":"limit_exceeded"}`}},
		{"check of a disabled feature", "POST", "/api/v1/entitlements/check", ann, `{"feature":"sso"}`, 200, "",
			[]string{`"reason":"disabled"`}},
		{"check of an unknown user", "POST", "/api/v1/entitlements/check", worker, `{"user_id":"6f1c7a52-93c4-4a3e-8a0c-9f6a1f0b2c3d","feature":"sso"}`, 404, "not_found", nil},
		{"set a gauge", "PUT", "/api/v1/usage/gauges/projects", ann, `{"value":2,"idempotency_key":"p1"}`, 200, "",
			[]string{`"status":"recorded"`, `"used":2,"limit":3,"remaining":1`}},
		{"a gauge needs a value", "PUT", "/api/v1/usage/gauges/projects", ann, `{"idempotency_key":"p2"}`, 422, "validation_failed", nil},
		{"a counter is not a gauge", "PUT", "/api/v1/usage/gauges/api_calls", worker, fmt.Sprintf(`{"user_id":%q,"value":2,"idempotency_key":"p3"}`, annID), 422, "validation_failed", nil},
		{"entitlements after", "GET", "/api/v1/entitlements", ann, "", 200, "", []string{
			`"feature":"api_calls","kind":"counter","enabled":true,"limit":100,"overage":"block","used":60,"remaining":40,`,
			`"feature":"projects","kind":"gauge","enabled":true,"limit":3,"overage":null,"used":2,"remaining":1,"resets_at":null,`}},
	} {
		rec := e.call(t, tc.method, tc.path, tc.token, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
		if tc.wantCode != "" {
			require.Contains(t, rec.Body.String(), `"code":"`+tc.wantCode+`"`, tc.name)
		}
		for _, want := range tc.wantIn {
			require.Contains(t, rec.Body.String(), want, tc.name)
		}
	}
}

// N copies of one event, sent at once to two instances of the app on one database: one record, one charge.
func TestUsageEventCopiesAcrossTwoAppsRecordOnce(t *testing.T) {
	t.Parallel()
	a := newUsageEnv(t, nil, nil)
	b := newUsageEnv(t, a.db, a.issuer)
	a.seedCredits(t, "user_bo", 25)
	id := a.userID(t, "user_bo")
	const n = 20
	body := usageBody(usageEvent(id, "generations", 3, "render-77"), usageEvent(id, "api_calls", 7, "call-77"))
	got := concurrently(n, func(i int) string {
		e := a
		if i%2 == 1 {
			e = b
		}
		rec := e.call(t, http.MethodPost, "/api/v1/usage", workerKey, body)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var out struct {
			Results []struct{ Status string } `json:"results"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		return out.Results[0].Status + "," + out.Results[1].Status
	})
	counts := map[string]int{}
	for _, s := range got {
		counts[s]++
	}
	require.Equal(t, map[string]int{"recorded,recorded": 1, "duplicate,duplicate": n - 1}, counts)
	require.Equal(t, 10, a.creditBalance(t, "user_bo"), "25 less one charge of 3 × 5")
	require.Equal(t, 2, a.ledgerInt(t, `SELECT count(*) FROM usage_events WHERE user_id = ?`, id))
	require.Equal(t, 7, a.ledgerInt(t, `SELECT used FROM usage_counters WHERE user_id = ? AND feature = 'api_calls'`, id))
}

// Crossing 80 % through the API delivers the notification at once: one audit row, one email job.
func TestUsageThresholdThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := newUsageEnv(t, nil, nil)
	e.seedCredits(t, "user_cy", 1)
	id := e.userID(t, "user_cy")
	for i := range 3 {
		rec := e.call(t, http.MethodPost, "/api/v1/usage", workerKey, usageBody(usageEvent(id, "api_calls", 45, fmt.Sprint("k", i))))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	}
	require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM audit_logs WHERE action = 'usage.threshold_reached' AND user_id = ?`, id))
	require.Equal(t, 1, e.ledgerInt(t, `SELECT count(*) FROM river_job WHERE kind = 'email' AND args->>'template' = 'usage_threshold'`))
	require.Equal(t, 0, e.ledgerInt(t, `SELECT count(*) FROM usage_notifications WHERE notified_at IS NULL`))
}
