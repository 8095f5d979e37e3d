package app

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestReadyFollowsTheDatabase(t *testing.T) {
	t.Parallel()
	a, d := testApp(t, nil)
	rec := get(a.Echo(), "/health/ready")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	unverified(d, "the test drops its database")
	pgtest.Drop(t, d)
	// Each check's result is reused for a few seconds (httpapi checkCacheFor), so the drop shows after that.
	require.Eventually(t, func() bool {
		rec = get(a.Echo(), "/health/ready")
		return rec.Code == http.StatusServiceUnavailable
	}, 15*time.Second, 100*time.Millisecond)
	require.Contains(t, rec.Body.String(), `"name":"database","ok":false`)

	rec = get(a.Echo(), "/status")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `"overall":"down"`)
}

func TestReadyRequiresLatestSchema(t *testing.T) {
	t.Parallel()
	a, _ := testApp(t, nil)
	require.NoError(t, a.migrator.Down(context.Background()))
	rec := get(a.Echo(), "/health/ready")
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Contains(t, rec.Body.String(), "run fabrica migrate up")
}

// A request in flight when SIGTERM arrives (ctx cancelled) completes; Serve then returns nil.
func TestGracefulShutdownDrainsInFlightRequests(t *testing.T) {
	t.Parallel()
	a, _ := testApp(t, map[string]string{"SHUTDOWN_TIMEOUT": "10s", "SERVE_WORKERS": "false"})
	entered := make(chan struct{})
	a.Echo().GET("/slow", func(c echo.Context) error {
		close(entered)
		time.Sleep(300 * time.Millisecond)
		// The request's context survives the shutdown signal: work that was about to commit is not aborted.
		if err := c.Request().Context().Err(); err != nil {
			return err
		}
		return c.String(http.StatusOK, "done")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()

	type result struct {
		status int
		body   string
		err    error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/slow")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- result{status: resp.StatusCode, body: string(b)}
	}()
	<-entered
	cancel()

	r := <-got
	require.NoError(t, r.err)
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, "done", r.body)
	require.NoError(t, <-served)

	_, err = http.Get("http://" + ln.Addr().String() + "/health")
	require.Error(t, err, "no new connections after shutdown")
}
