package app

import (
	"bytes"
	"context"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
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

func (e *apiEnv) call(t *testing.T, method, path, token, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	e.app.Echo().ServeHTTP(rec, req)
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
