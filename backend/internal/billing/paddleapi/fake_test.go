package paddleapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const testKey = "pdl_sdbx_apikey_test_secret"

// gotRequest is what the fake Paddle received.
type gotRequest struct {
	Method, Path, Auth, ContentType, Body string
}

// reply is one scripted answer. hang blocks until the client gives up;
// drop closes the connection without a response.
type reply struct {
	status int
	body   string
	header map[string]string
	hang   bool
	drop   bool
}

// fakePaddle is a recording stand-in for the Paddle API: it answers with the
// scripted replies in order, repeating the last one.
type fakePaddle struct {
	mu      sync.Mutex
	got     []gotRequest
	replies []reply
}

func (f *fakePaddle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	rep := f.replies[min(len(f.got), len(f.replies)-1)]
	f.got = append(f.got, gotRequest{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), string(body)})
	f.mu.Unlock()
	switch {
	case rep.hang:
		<-r.Context().Done()
		return
	case rep.drop:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
		return
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.status)
	_, _ = io.WriteString(w, rep.body)
}

func (f *fakePaddle) requests() []gotRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]gotRequest(nil), f.got...)
}

// waits records the retry delays the client asked for, without sleeping.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// setup starts a fake Paddle answering with replies and returns a Client
// pointed at it whose retry waits are recorded instead of slept.
func setup(t *testing.T, cfg Config, replies ...reply) (*Client, *fakePaddle, *waits) {
	t.Helper()
	fake := &fakePaddle{replies: replies}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	cfg.BaseURL, cfg.APIKey = srv.URL, testKey
	c, err := New(cfg)
	require.NoError(t, err)
	w := &waits{}
	c.retry.sleep = w.sleep
	return c, fake, w
}

// Response bodies shaped like Paddle's.
const (
	subscriptionOK = `{"data":{"id":"sub_01","status":"active"},"meta":{"request_id":"req_1"}}`
	unavailable    = `{"error":{"type":"api_error","code":"service_unavailable","detail":"try later"},"meta":{"request_id":"req_2"}}`
	tooMany        = `{"error":{"type":"request_error","code":"too_many_requests","detail":"slow down"},"meta":{"request_id":"req_3"}}`
)

func paddleError(code, detail string) string {
	return `{"error":{"type":"request_error","code":"` + code + `","detail":"` + detail +
		`","documentation_url":"https://developer.paddle.com/v1/errors/shared/` + code + `"},"meta":{"request_id":"req_e"}}`
}
