package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// fakeClerkReceiver verifies deliveries like the server does and answers duplicates as idempotent.
func fakeClerkReceiver(t *testing.T) *httptest.Server {
	t.Helper()
	verifier, err := webhook.NewSvixSignature([]string{config.DevClerkWebhookSecret}, time.Minute)
	require.NoError(t, err)
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/webhooks/clerk" || verifier.Verify(r.Header, body, time.Now()) != nil || !json.Valid(body) {
			http.Error(w, "refused", http.StatusUnauthorized)
			return
		}
		id := r.Header.Get(webhook.SvixIDHeader)
		mu.Lock()
		dup := seen[id]
		seen[id] = true
		mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"event_id": id, "idempotent": dup})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRunNewAndDup(t *testing.T) {
	t.Parallel()
	srv := fakeClerkReceiver(t)
	for _, mode := range []string{modeNew, modeDup} {
		var out, errOut bytes.Buffer
		err := run(context.Background(), []string{"-url", srv.URL, "-mode", mode, "-senders", "4",
			"-duration", "200ms", "-warmup", "0s", "-max", "300"}, &out, &errOut)
		require.NoError(t, err, errOut.String())
		var rep report
		require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
		require.Equal(t, mode, rep.Mode)
		require.Zero(t, rep.Errors)
		require.Positive(t, rep.Deliveries)
		require.LessOrEqual(t, rep.Sent, int64(300), "-max bounds every delivery sent")
		require.Contains(t, errOut.String(), "loadgen: "+mode)
	}
}

func TestRunFailsOnRefusedDeliveries(t *testing.T) {
	t.Parallel()
	srv := fakeClerkReceiver(t)
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"-url", srv.URL, "-secret", "whsec_d3Jvbmc=", "-duration", "50ms",
		"-warmup", "0s", "-max", "5"}, &out, &errOut)
	require.ErrorContains(t, err, "401")
}

func TestOnlyLoopbackTargets(t *testing.T) {
	t.Parallel()
	for url, ok := range map[string]bool{
		"http://127.0.0.1:8080": true, "http://localhost:8080": true, "http://[::1]:8080": true,
		"http://10.0.0.1:8080": false, "https://api.example.com": false, "127.0.0.1:8080": false,
	} {
		require.Equal(t, ok, checkLoopback(url) == nil, url)
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	require.Equal(t, 50*time.Millisecond, percentile(d, 0.50))
	require.Equal(t, 99*time.Millisecond, percentile(d, 0.99))
	require.Equal(t, time.Duration(0), percentile(nil, 0.5))
}
