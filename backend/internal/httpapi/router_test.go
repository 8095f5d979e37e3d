package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

func newTestRouter(cfg Config, checks ...Check) *echo.Echo {
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 1024
	}
	return New(cfg, Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Checks: checks})
}

func do(e http.Handler, method, path string, body io.Reader, hdr map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, body)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	t.Parallel()
	e := newTestRouter(Config{Env: "development"})
	e.GET("/boom", func(echo.Context) error { return errors.New("secret detail") })
	for _, tc := range []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, "/health", http.StatusOK},
		{http.MethodGet, "/nope", http.StatusNotFound},
		{http.MethodDelete, "/health", http.StatusMethodNotAllowed},
		{http.MethodGet, "/boom", http.StatusInternalServerError},
	} {
		rec := do(e, tc.method, tc.path, nil, nil)
		require.Equal(t, tc.want, rec.Code, tc.path)
		h := rec.Header()
		require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), tc.path)
		require.Equal(t, "DENY", h.Get("X-Frame-Options"), tc.path)
		require.Equal(t, "no-referrer", h.Get("Referrer-Policy"), tc.path)
		require.Contains(t, h.Get("Content-Security-Policy"), "default-src 'none'", tc.path)
		require.NotEmpty(t, h.Get(echo.HeaderXRequestID), tc.path)
		require.Empty(t, h.Get("Strict-Transport-Security"), "no HSTS outside production")
	}
}

func TestHSTSInProductionOnly(t *testing.T) {
	t.Parallel()
	rec := do(newTestRouter(Config{Env: "production", HSTS: true}), http.MethodGet, "/health", nil, nil)
	require.Equal(t, "max-age=31536000; includeSubDomains", rec.Header().Get("Strict-Transport-Security"))
}

func decodeError(t *testing.T, rec *httptest.ResponseRecorder) ErrorDetail {
	t.Helper()
	var body ErrorBody
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return body.Error
}

func TestErrorShape(t *testing.T) {
	t.Parallel()
	e := newTestRouter(Config{Env: "development"})
	e.GET("/boom", func(echo.Context) error { return errors.New("db password is hunter2") })
	e.GET("/conflict", func(echo.Context) error {
		return NewError(http.StatusConflict, "already_subscribed", "already subscribed")
	})

	rec := do(e, http.MethodGet, "/boom", nil, nil)
	require.Equal(t, ErrorDetail{Code: "internal_error", Message: "internal server error"}, decodeError(t, rec))
	require.NotContains(t, rec.Body.String(), "hunter2", "unknown errors never leak their detail")

	rec = do(e, http.MethodGet, "/conflict", nil, nil)
	require.Equal(t, http.StatusConflict, rec.Code)
	require.Equal(t, "already_subscribed", decodeError(t, rec).Code)

	rec = do(e, http.MethodGet, "/missing", nil, nil)
	require.Equal(t, "not_found", decodeError(t, rec).Code)

	e.GET("/spend", func(echo.Context) error { return fmt.Errorf("spend credits: %w", credits.ErrInsufficient) })
	rec = do(e, http.MethodGet, "/spend", nil, nil)
	require.Equal(t, http.StatusPaymentRequired, rec.Code)
	require.Equal(t, "insufficient_credits", decodeError(t, rec).Code)
}

func TestAPIBodyLimit(t *testing.T) {
	t.Parallel()
	e := newTestRouter(Config{Env: "development", MaxBodyBytes: 16})
	rec := do(e, http.MethodPost, "/api/v1/anything", strings.NewReader(strings.Repeat("x", 17)), nil)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Equal(t, "payload_too_large", decodeError(t, rec).Code)
}

func TestCORSDenyByDefault(t *testing.T) {
	t.Parallel()
	preflight := map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
	rec := do(newTestRouter(Config{Env: "development"}), http.MethodOptions, "/api/v1/x", nil, preflight)
	require.Empty(t, rec.Header().Get("Access-Control-Allow-Origin"))

	e := newTestRouter(Config{Env: "development", CORSOrigins: []string{"https://app.example.com"}})
	rec = do(e, http.MethodOptions, "/api/v1/x", nil, preflight)
	require.Empty(t, rec.Header().Get("Access-Control-Allow-Origin"), "an unlisted origin gets nothing")
	preflight["Origin"] = "https://app.example.com"
	rec = do(e, http.MethodOptions, "/api/v1/x", nil, preflight)
	require.Equal(t, "https://app.example.com", rec.Header().Get("Access-Control-Allow-Origin"))
}

func TestHealthEndpoints(t *testing.T) {
	t.Parallel()
	ok := Check{Name: "database", Run: func(context.Context) error { return nil }}
	slow := Check{Name: "slow", Run: func(context.Context) error { time.Sleep(degradedAfter + 50*time.Millisecond); return nil }}
	down := Check{Name: "schema", Run: func(context.Context) error { return errors.New("schema at version 3, this build expects 5") }}

	rec := do(newTestRouter(Config{Env: "test"}, ok), http.MethodGet, "/health/ready", nil, nil)
	require.Equal(t, http.StatusOK, rec.Code)

	e := newTestRouter(Config{Env: "test"}, ok, slow, down)
	rec = do(e, http.MethodGet, "/health/ready", nil, nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	var ready readyResponse
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &ready))
	require.False(t, ready.OK)
	require.Equal(t, "schema", ready.Checks[2].Name)
	require.Contains(t, ready.Checks[2].Message, "expects 5")

	rec = do(e, http.MethodGet, "/status", nil, nil)
	require.Equal(t, http.StatusOK, rec.Code, "/status is always 200")
	var st statusResponse
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	require.Equal(t, "down", st.Overall)
	require.Equal(t, []component{{"database", "operational"}, {"slow", "degraded"}, {"schema", "down"}}, st.Components)
	require.NotContains(t, rec.Body.String(), "expects", "no error text on /status")

	rec = do(e, http.MethodGet, "/health", nil, nil)
	require.Equal(t, http.StatusOK, rec.Code, "liveness does no I/O and ignores failing checks")
}

// /health/ready and /status are public: a burst of requests runs each check once (the callers that arrive
// while it runs wait for its result), and the result answers both endpoints until it is checkCacheFor old.
func TestHealthChecksRunOncePerCachePeriod(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	release := make(chan struct{})
	slowDB := Check{Name: "database", Run: func(context.Context) error { runs.Add(1); <-release; return nil }}
	var mu sync.Mutex
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	e := New(Config{Env: "test", MaxBodyBytes: 1024}, Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Checks: []Check{slowDB}, Now: clock})

	var wg sync.WaitGroup
	codes := make(chan int, 200)
	for i := range 200 {
		path := "/status"
		if i%2 == 0 {
			path = "/health/ready"
		}
		wg.Go(func() { codes <- do(e, http.MethodGet, path, nil, nil).Code })
	}
	time.Sleep(50 * time.Millisecond) // let the burst pile up behind the one run
	close(release)
	wg.Wait()
	close(codes)
	for code := range codes {
		require.Equal(t, http.StatusOK, code)
	}
	require.EqualValues(t, 1, runs.Load(), "200 requests, one run")

	mu.Lock()
	now = now.Add(checkCacheFor - time.Second)
	mu.Unlock()
	do(e, http.MethodGet, "/status", nil, nil)
	require.EqualValues(t, 1, runs.Load(), "still fresh")
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	do(e, http.MethodGet, "/health/ready", nil, nil)
	require.EqualValues(t, 2, runs.Load(), "stale: run again")
}
