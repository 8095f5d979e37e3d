package app

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// envWith builds an API env with extra configuration.
func envWith(t *testing.T, extra map[string]string) *apiEnv {
	t.Helper()
	d := pgtest.New(t)
	tiers := filepath.Join(t.TempDir(), "tiers.yaml")
	require.NoError(t, os.WriteFile(tiers, []byte(testTiers), 0o600))
	e := &apiEnv{db: d, issuer: sessiontest.NewIssuer(t), paddle: &fakePaddle{}}
	vars := map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "TIERS_FILE": tiers, "SHUTDOWN_TIMEOUT": "5s"}
	for k, v := range extra {
		vars[k] = v
	}
	e.app = appOn(t, d, vars, Options{PaddleAPI: e.paddle})
	return e
}

func TestRateLimitPerUser(t *testing.T) {
	t.Parallel()
	e := envWith(t, map[string]string{"RATE_LIMIT_PER_MINUTE": "3"})
	a, b := e.token(t, "user_a"), e.token(t, "user_b")
	for range 3 {
		require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/billing/subscription", a, "").Code)
	}
	rec := e.call(t, http.MethodGet, "/api/v1/billing/subscription", a, "")
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.Contains(t, rec.Body.String(), `"code":"rate_limited"`)
	require.Equal(t, "20", rec.Header().Get("Retry-After"))
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/billing/subscription", b, "").Code, "budgets are per user")

	// Webhooks are never rate limited: providers retry whatever we refuse.
	for i := range 5 {
		h, body := clerkEvent(t, "msg_rl_"+string(rune('a'+i)), "user.updated", "user_rl", "rl@example.com", int64(1_700_000_000_000+i))
		require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderClerk, h, body).Code)
	}
}

func TestMetricsCountDeliveriesAndRequireTheToken(t *testing.T) {
	t.Parallel()
	e := envWith(t, map[string]string{"METRICS_TOKEN": "scrape-secret"})
	h, body := clerkEvent(t, "msg_m", "user.created", "user_m", "m@example.com", 1_700_000_000_000)
	for range 3 {
		deliver(e.app.Echo(), webhook.ProviderClerk, h, body)
	}
	deliver(e.app.Echo(), webhook.ProviderClerk, http.Header{}, body)

	require.Equal(t, http.StatusUnauthorized, e.call(t, http.MethodGet, "/metrics", "", "").Code)
	require.Equal(t, http.StatusUnauthorized, e.call(t, http.MethodGet, "/metrics", "wrong", "").Code)
	rec := e.call(t, http.MethodGet, "/metrics", "scrape-secret", "")
	require.Equal(t, http.StatusOK, rec.Code)
	out := rec.Body.String()
	for _, want := range []string{
		`fabrica_webhook_deliveries_total{event_type="user.created",outcome="processed",provider="clerk"} 1`,
		`fabrica_webhook_deliveries_total{event_type="user.created",outcome="skipped",provider="clerk"} 2`,
		`fabrica_webhook_deliveries_total{event_type="",outcome="unauthorized",provider="clerk"} 1`,
		`fabrica_ledger_movements_24h{kind="grant"} 1`,
		`fabrica_ledger_credits_24h{kind="grant"} 25`,
		`fabrica_webhook_pipeline_seconds_count{provider="clerk"}`,
		`go_sql_max_open_connections{db_name="fabrica"}`,
		"fabrica_session_jwks_failures_total 0",
		"fabrica_session_jwks_stale 0",
	} {
		require.Contains(t, out, want)
	}
}

// The workers run every periodic task on start (RunOnStart) and record the outcomes in /metrics.
func TestPeriodicTasksRunOnTheWorkers(t *testing.T) {
	t.Parallel()
	e := envWith(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.app.RunWorkers(ctx) }()
	require.Eventually(t, func() bool {
		var names []string
		require.NoError(t, e.db.Gorm.Raw(`SELECT args->>'name' FROM river_job WHERE kind = 'task' AND state = 'completed' ORDER BY 1`).Scan(&names).Error)
		return strings.Join(names, ",") == "archive-partitions,expire-credits,expire-subscriptions,hard-delete-accounts,monthly-grants,purge-archive,purge-audit,purge-usage,reconcile-credits,usage-notifications,usage-partitions,verify"
	}, 20*time.Second, 100*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	rec := e.call(t, http.MethodGet, "/metrics", "", "")
	require.Contains(t, rec.Body.String(), `fabrica_jobs_total{kind="task",outcome="completed"}`)

	for _, name := range []string{"reconcile-credits", "expire-credits", "expire-subscriptions", "monthly-grants", "hard-delete-accounts", "archive-partitions",
		"purge-archive", "purge-audit", "usage-notifications", "usage-partitions", "purge-usage", "verify"} {
		_, err := e.app.RunTask(context.Background(), name)
		require.NoError(t, err, name)
	}
	_, err := e.app.RunTask(context.Background(), "nope")
	require.ErrorContains(t, err, "unknown task")
}

// Deleting an account stops its billing: a Paddle cancel job commits with the deletion and the worker
// cancels at the end of the paid period.
func TestDeletingAnAccountCancelsItsSubscriptionAtPaddle(t *testing.T) {
	t.Parallel()
	e := envWith(t, nil)
	e.subscribe(t, "user_leaving", "active", "pro")
	require.Equal(t, http.StatusOK, e.call(t, http.MethodDelete, "/api/v1/account/me", e.token(t, "user_leaving"), "").Code)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.app.RunWorkers(ctx) }()
	require.Eventually(t, func() bool {
		for _, c := range e.paddle.recorded() {
			if c == "cancel sub_user_leaving" {
				return true
			}
		}
		return false
	}, 20*time.Second, 50*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	require.Equal(t, []string{"cancel sub_user_leaving"}, e.paddle.recorded())
}

// Per-tier budgets: a tier's rate_limit_per_minute replaces RATE_LIMIT_PER_MINUTE for its users, read from
// the user's current tier on every request; tiers without one keep the default.
func TestRateLimitFollowsTheTier(t *testing.T) {
	t.Parallel()
	tiers := filepath.Join(t.TempDir(), "tiers.yaml")
	require.NoError(t, os.WriteFile(tiers, []byte(`tiers:
  - name: free
    signup_credits: 25
    rate_limit_per_minute: 2
  - name: pro
    paddle_price_ids: [pri_pro_monthly]
    monthly_credits: 1000
`), 0o600))
	e := envWith(t, map[string]string{"RATE_LIMIT_PER_MINUTE": "5", "TIERS_FILE": tiers})
	free, pro := e.token(t, "user_free"), e.token(t, "user_pro")
	e.subscribe(t, "user_pro", "active", "pro")
	path := "/api/v1/billing/subscription"
	for range 2 {
		require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, path, free, "").Code)
	}
	rec := e.call(t, http.MethodGet, path, free, "")
	require.Equal(t, http.StatusTooManyRequests, rec.Code, "the free tier's own budget")
	require.Equal(t, "30", rec.Header().Get("Retry-After"), "2 a minute: the next token in 30 s")
	for range 5 {
		require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, path, pro, "").Code, "pro has no budget of its own: the default")
	}
	require.Equal(t, http.StatusTooManyRequests, e.call(t, http.MethodGet, path, pro, "").Code)

	// An upgrade applies on the next request: the free user, now on pro, has the default budget.
	e.subscribe(t, "user_free", "active", "pro")
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, path, free, "").Code)
}
