package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The shared harness of the API tests: an App on a private database with sessions minted by a local
// issuer and a recording Paddle fake.

// fakePaddle records what billing asked Paddle to do.
type fakePaddle struct {
	mu        sync.Mutex
	calls     []string
	customers []string
}

func (f *fakePaddle) record(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
	return nil
}

func (f *fakePaddle) CancelSubscription(_ context.Context, id string, now bool) error {
	if now {
		return f.record("cancel-now " + id)
	}
	return f.record("cancel " + id)
}

func (f *fakePaddle) ChangeItems(_ context.Context, id string, items map[string]int, upgrade bool) error {
	list := make([]string, 0, len(items))
	for _, p := range slices.Sorted(maps.Keys(items)) {
		list = append(list, p+" x"+strconv.Itoa(items[p]))
	}
	billing := "do_not_bill"
	if upgrade {
		billing = "prorated_immediately"
	}
	return f.record("change " + id + " " + strings.Join(list, ",") + " " + billing)
}

func (f *fakePaddle) ResumeSubscription(_ context.Context, id string) error {
	return f.record("resume " + id)
}

func (f *fakePaddle) PortalURL(_ context.Context, customer string, subs []string) (string, error) {
	return "https://portal.example/" + customer, f.record("portal " + customer + " " + strings.Join(subs, ","))
}

// EnsureCustomer answers "ctm_<local part>" and records the email apart from calls, which lists what
// billing asked Paddle to do to subscriptions.
func (f *fakePaddle) EnsureCustomer(_ context.Context, email string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.customers = append(f.customers, email)
	local, _, _ := strings.Cut(email, "@")
	return "ctm_" + local, nil
}

func (f *fakePaddle) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

const testTiers = `tiers:
  - name: free
    signup_credits: 25
  - name: pro
    paddle_price_ids: [pri_pro_monthly, pri_pro_yearly]
    monthly_credits: 1000
  - name: team
    paddle_price_ids: [pri_team_monthly]
    monthly_credits: 5000
credit_packs:
  - {price_id: pri_credits_500, credits: 500, expires_in: 8760h}
`

type apiEnv struct {
	app    *App
	db     *pgtest.DB
	issuer *sessiontest.Issuer
	paddle *fakePaddle
}

func newAPIEnv(t *testing.T) *apiEnv {
	t.Helper()
	d := pgtest.New(t)
	tiers := filepath.Join(t.TempDir(), "tiers.yaml")
	require.NoError(t, os.WriteFile(tiers, []byte(testTiers), 0o600))
	e := &apiEnv{db: d, issuer: sessiontest.NewIssuer(t), paddle: &fakePaddle{}}
	e.app = appOn(t, d, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "TIERS_FILE": tiers,
		"WORKER_API_KEYS": workerKey + "," + workerKeyNext}, Options{PaddleAPI: e.paddle})
	return e
}

// The service keys of the trusted side in the API tests: two, as during a rotation.
const (
	workerKey     = "wk_test_0123456789abcdef0123456789abcdef"
	workerKeyNext = "wk_test_fedcba9876543210fedcba9876543210"
)

func (e *apiEnv) token(t *testing.T, clerkID string) string {
	return e.issuer.Token(t, sessiontest.TokenClaims{UserID: clerkID, SessionID: "sess_" + clerkID,
		Email: clerkID + "@example.com", EmailVerified: true})
}

// subscribe gives clerkID a subscription in the given status, as Paddle's webhooks would have: the user is on
// the tier while the subscription grants it (paused: free).
func (e *apiEnv) subscribe(t *testing.T, clerkID, status, tier string) {
	t.Helper()
	userTier := tier
	if status == "paused" {
		userTier = "free"
	}
	require.NoError(t, e.db.Gorm.Exec(`WITH u AS (
		INSERT INTO users (clerk_user_id, email, current_tier) VALUES (?, ?, ?)
		ON CONFLICT (clerk_user_id) DO UPDATE SET current_tier = EXCLUDED.current_tier RETURNING id)
		INSERT INTO subscriptions (user_id, paddle_subscription_id, paddle_customer_id, paddle_price_id, tier, status,
		   current_period_end, last_event_at)
		SELECT id, 'sub_' || ?, 'ctm_' || ?, 'pri_' || ? || '_monthly', ?, ?, now() + interval '20 days', now() FROM u`,
		clerkID, clerkID+"@example.com", userTier, clerkID, clerkID, tier, tier, status).Error)
}

// call sends one request through the App's router and returns the recorded answer: a bearer token ("" for
// none), a JSON body ("" for none) and any further headers (Idempotency-Key, X-Forwarded-For, ...).
func (e *apiEnv) call(t *testing.T, method, path, token, body string, headers ...http.Header) *httptest.ResponseRecorder {
	t.Helper()
	return serve(e.app.Echo(), method, path, token, body, headers...)
}

// serve is call on any handler (a second App's router, a bare Echo).
func serve(h http.Handler, method, path, token, body string, headers ...http.Header) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for _, hdr := range headers {
		for k, vs := range hdr {
			req.Header[http.CanonicalHeaderKey(k)] = vs
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// newBenchEnv is an App on a private database for benchmarks (no *testing.T).
func newBenchEnv(b *testing.B) (*App, error) {
	d := pgtest.New(b)
	return appOn(b, d, map[string]string{"DB_MAX_CONNS": "40"}, Options{}), nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// concurrently runs f(0..n-1) in n goroutines released together and returns their results in order.
func concurrently[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = f(i)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// runWorkers runs a's job workers (the `fabrica worker` process) until cleanup, which expects a clean drain.
func runWorkers(t *testing.T, a *App) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.RunWorkers(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
}

func decodeBody[T any](t *testing.T, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v), rec.Body.String())
	return v
}

func decodeJSON[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(body, &v), string(body))
	return v
}

// get is a bare GET: no token, no body, no headers (the public endpoints).
func get(h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

// getWith is get with request headers.
// getWith is a GET with the given headers and nothing else.
func getWith(h http.Handler, path string, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// testApp is an App on a private database with the test environment's configuration plus env.
func testApp(t *testing.T, env map[string]string) (*App, *pgtest.DB) {
	t.Helper()
	d := pgtest.New(t)
	return appOn(t, d, env, Options{}), d
}

// appOn builds another App on an existing test database: several instances share one database the way
// several server processes do.
func appOn(t testing.TB, d *pgtest.DB, env map[string]string, opts Options) *App {
	t.Helper()
	vars := map[string]string{"APP_ENV": config.EnvTest, "DATABASE_URL": d.URL}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := config.LoadForTest(func(k string) string { return vars[k] })
	require.NoError(t, err)
	a, err := New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), opts)
	require.NoError(t, err)
	checkAgainstSpec(t, a.Echo())
	t.Cleanup(func() { _ = a.Close() })
	verifyAtEnd(t, a, d)
	return a
}

// newAdminEnv is an API env whose ADMIN_EMAILS names boss@example.com (spelled in mixed case and padded,
// as an operator might type it), on the default tiers.
func newAdminEnv(t *testing.T) *apiEnv {
	t.Helper()
	d := pgtest.New(t)
	e := &apiEnv{db: d, issuer: sessiontest.NewIssuer(t), paddle: &fakePaddle{}}
	e.app = appOn(t, d, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(),
		"ADMIN_EMAILS": " Boss@EXAMPLE.com ,kate@example.com"}, Options{PaddleAPI: e.paddle})
	return e
}

// adminToken signs a session for the admin; the e-mail claim's case differs from ADMIN_EMAILS.
func (e *apiEnv) adminToken(t *testing.T) string {
	return e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_boss", SessionID: "sess_boss", Email: "boss@Example.COM",
		EmailVerified: true})
}

func (e *apiEnv) count(t *testing.T, query string, args ...any) int64 {
	t.Helper()
	var n int64
	require.NoError(t, e.db.Gorm.Raw(query, args...).Scan(&n).Error)
	return n
}

// verified is the verification object Clerk puts on an address it has verified.
var verified = map[string]any{"status": "verified", "strategy": "email_code"}

// clerkEvent builds a signed Clerk delivery of a user event, as Svix sends it.
func clerkEvent(t *testing.T, msgID, typ, clerkID, mail string, updatedAtMS int64) (http.Header, []byte) {
	t.Helper()
	data := map[string]any{"id": clerkID, "object": "user"}
	if typ == "user.deleted" {
		data["deleted"] = true
	} else {
		data["primary_email_address_id"] = "idn_1"
		data["email_addresses"] = []map[string]any{{"id": "idn_1", "email_address": mail, "verification": verified}}
		data["updated_at"] = updatedAtMS
	}
	body, err := json.Marshal(map[string]any{"type": typ, "object": "event", "timestamp": updatedAtMS, "data": data})
	require.NoError(t, err)
	h, err := webhook.SignSvix(config.DevClerkWebhookSecret, msgID, time.Now(), body)
	require.NoError(t, err)
	return h, body
}

// deliver posts a signed delivery to /webhooks/<provider>.
func deliver(h http.Handler, provider string, hdr http.Header, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/webhooks/"+provider, strings.NewReader(string(body)))
	for k, v := range hdr {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
