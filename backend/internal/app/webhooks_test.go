package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// tally counts every effect a Clerk event can have.
type tally struct {
	Users, Deleted, Grants, Credits, EmailJobs, Audits, Claims, Processed, Skipped, Failed int64
}

func countAll(t *testing.T, d *pgtest.DB) tally {
	t.Helper()
	var c tally
	require.NoError(t, d.Gorm.Raw(`SELECT
		(SELECT count(*) FROM users),
		(SELECT count(*) FROM users WHERE deleted_at IS NOT NULL),
		(SELECT count(*) FROM credit_transactions WHERE kind = 'grant'),
		(SELECT coalesce(sum(delta), 0) FROM credit_transactions),
		(SELECT count(*) FROM river_job WHERE kind = 'email'),
		(SELECT count(*) FROM audit_logs),
		(SELECT count(*) FROM processed_webhook_events),
		(SELECT count(*) FROM webhook_events WHERE processing_status = 'processed'),
		(SELECT count(*) FROM webhook_events WHERE processing_status = 'skipped'),
		(SELECT count(*) FROM webhook_events WHERE processing_status = 'failed')`).Row().
		Scan(&c.Users, &c.Deleted, &c.Grants, &c.Credits, &c.EmailJobs, &c.Audits, &c.Claims, &c.Processed, &c.Skipped, &c.Failed))
	return c
}

func TestClerkEventsReplayedTenTimesHaveOneEffect(t *testing.T) {
	t.Parallel()
	a, d := testApp(t, nil)
	steps := []struct {
		typ  string
		want tally
	}{
		{"user.created", tally{Users: 1, Grants: 1, Credits: 25, EmailJobs: 1, Audits: 1, Claims: 1, Processed: 1, Skipped: 9}},
		{"user.updated", tally{Users: 1, Grants: 1, Credits: 25, EmailJobs: 1, Audits: 1, Claims: 2, Processed: 2, Skipped: 18}},
		{"user.deleted", tally{Users: 1, Deleted: 1, Grants: 1, Credits: 25, EmailJobs: 1, Audits: 2, Claims: 3, Processed: 3, Skipped: 27}},
	}
	for i, step := range steps {
		h, body := clerkEvent(t, fmt.Sprintf("msg_%d", i), step.typ, "user_1", "ada@example.com", int64(1_700_000_000_000+i))
		for n := range 10 {
			rec := deliver(a.Echo(), webhook.ProviderClerk, h, body)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			require.Equal(t, n > 0, strings.Contains(rec.Body.String(), `"idempotent":true`), rec.Body.String())
		}
		require.Equal(t, step.want, countAll(t, d), step.typ)
	}
}

// Twenty deliveries of one user.created at once, spread over two server instances sharing the database:
// one user, one grant, one welcome job.
func TestConcurrentDeliveriesAcrossTwoInstances(t *testing.T) {
	t.Parallel()
	a1, d := testApp(t, nil)
	a2 := appOn(t, d, nil, Options{})
	h, body := clerkEvent(t, "msg_race", "user.created", "user_race", "race@example.com", 1_700_000_000_000)
	const n = 20
	codes := concurrently(n, func(i int) int {
		srv := a1.Echo()
		if i%2 == 1 {
			srv = a2.Echo()
		}
		return deliver(srv, webhook.ProviderClerk, h, body).Code
	})
	for _, c := range codes {
		require.Equal(t, http.StatusOK, c)
	}
	require.Equal(t, tally{Users: 1, Grants: 1, Credits: 25, EmailJobs: 1, Audits: 1, Claims: 1, Processed: 1, Skipped: n - 1}, countAll(t, d))
}

// failingWriter stands for a connection reset after the commit: the 200 never reaches the provider.
type failingWriter struct{ header http.Header }

func (w *failingWriter) Header() http.Header         { return w.header }
func (w *failingWriter) Write([]byte) (int, error)   { return 0, net.ErrClosed }
func (w *failingWriter) WriteHeader(int)             {}
func (w *failingWriter) Unwrap() http.ResponseWriter { return nil }

func TestResponseLostAfterCommitRedeliveryIsSkipped(t *testing.T) {
	t.Parallel()
	a, d := testApp(t, nil)
	h, body := clerkEvent(t, "msg_lost", "user.created", "user_lost", "lost@example.com", 1_700_000_000_000)
	req := httptest.NewRequest(http.MethodPost, "/webhooks/clerk", strings.NewReader(string(body)))
	req.Header = h.Clone()
	a.Echo().ServeHTTP(&failingWriter{header: http.Header{}}, req)

	rec := deliver(a.Echo(), webhook.ProviderClerk, h, body)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `"idempotent":true`)
	require.Equal(t, int64(1), countAll(t, d).Grants)
}

// SIGTERM arrives while a delivery is in flight: the delivery completes (its request context survives the
// signal), Serve drains and returns nil, and the effect exists exactly once.
func TestSIGTERMDuringDeliveryCompletesIt(t *testing.T) {
	t.Parallel()
	a, d := testApp(t, map[string]string{"SERVE_WORKERS": "false", "SHUTDOWN_TIMEOUT": "20s"})
	h, body := clerkEvent(t, "msg_term", "user.created", "user_term", "term@example.com", 1_700_000_000_000)

	// Hold the user row's key so the delivery blocks mid-transaction, after its claim.
	blocker := d.Gorm.Begin()
	require.NoError(t, blocker.Exec(`INSERT INTO users (clerk_user_id) VALUES ('user_term')`).Error)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()

	got := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/webhooks/clerk", strings.NewReader(string(body)))
		req.Header = h.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- 0
			return
		}
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n).Error)
		return n > 0
	}, 10*time.Second, 10*time.Millisecond)
	cancel() // SIGTERM
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, blocker.Rollback().Error)

	require.Equal(t, http.StatusOK, <-got)
	require.NoError(t, <-served)
	c := countAll(t, d)
	require.Equal(t, int64(1), c.Grants)
	require.Equal(t, int64(1), c.Processed)
}

func TestBadWebhookInputWritesNothing(t *testing.T) {
	t.Parallel()
	a, d := testApp(t, map[string]string{"WEBHOOK_MAX_BODY_BYTES": "4096"})
	h, body := clerkEvent(t, "msg_bad", "user.created", "user_bad", "bad@example.com", 1_700_000_000_000)
	tampered := strings.Replace(string(body), "bad@", "evil@", 1)
	noSig := http.Header{"Svix-Id": h["Svix-Id"], "Svix-Timestamp": h["Svix-Timestamp"]}
	big := []byte(`{"type":"user.created","pad":"` + strings.Repeat("x", 5000) + `"}`)
	bigH, err := webhook.SignSvix(config.DevClerkWebhookSecret, "msg_big", time.Now(), big)
	require.NoError(t, err)
	paddleBody := []byte(`{"event_id":"evt_1","event_type":"subscription.created"}`)

	for _, tc := range []struct {
		name     string
		provider string
		hdr      http.Header
		body     []byte
		status   int
		code     string
	}{
		{"tampered body", webhook.ProviderClerk, h, []byte(tampered), http.StatusUnauthorized, "invalid_signature"},
		{"no signature", webhook.ProviderClerk, noSig, body, http.StatusUnauthorized, "invalid_signature"},
		{"clerk headers on paddle", webhook.ProviderPaddle, h, paddleBody, http.StatusUnauthorized, "invalid_signature"},
		{"too large", webhook.ProviderClerk, bigH, big, http.StatusRequestEntityTooLarge, "payload_too_large"},
	} {
		rec := deliver(a.Echo(), tc.provider, tc.hdr, tc.body)
		require.Equal(t, tc.status, rec.Code, tc.name)
		require.Contains(t, rec.Body.String(), `"code":"`+tc.code+`"`, tc.name)
	}
	require.Equal(t, tally{}, countAll(t, d))
	var archived int64
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM webhook_events`).Scan(&archived).Error)
	require.Zero(t, archived, "nothing unauthenticated reaches the database")

	// Verified but unreadable: archived as failed with the reason, no claim, and answered 200 with the
	// reason, because Paddle and Svix retry any other status for days and these bytes can never succeed.
	bad := []byte(`{"type": `)
	badH, err := webhook.SignSvix(config.DevClerkWebhookSecret, "msg_malformed", time.Now(), bad)
	require.NoError(t, err)
	rec := deliver(a.Echo(), webhook.ProviderClerk, badH, bad)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"event_id":"msg_malformed","failed":true,"reason":"malformed_payload"}`, rec.Body.String())
	require.Equal(t, tally{Failed: 1}, countAll(t, d))
}

// recordingSender is the fake email provider: it records what it was asked to send.
type recordingSender struct {
	mu   sync.Mutex
	sent []email.Message
}

func (s *recordingSender) Send(_ context.Context, m email.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, m)
	return nil
}

func (s *recordingSender) messages() []email.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]email.Message(nil), s.sent...)
}

// Ten deliveries of user.created, then the workers run: exactly one welcome email goes out.
func TestWelcomeEmailSentExactlyOnce(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	sender := &recordingSender{}
	a := appOn(t, d, map[string]string{"SHUTDOWN_TIMEOUT": "5s"}, Options{EmailSender: sender})
	h, body := clerkEvent(t, "msg_welcome", "user.created", "user_w", "Grace@Example.com", 1_700_000_000_000)
	for range 10 {
		require.Equal(t, http.StatusOK, deliver(a.Echo(), webhook.ProviderClerk, h, body).Code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.RunWorkers(ctx) }()
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM river_job WHERE state = 'completed'`).Scan(&n).Error)
		return n == 1
	}, 15*time.Second, 50*time.Millisecond)
	cancel()
	require.NoError(t, <-done)

	msgs := sender.messages()
	require.Len(t, msgs, 1)
	require.Equal(t, "grace@example.com", msgs[0].To)
	require.Equal(t, "welcome/user_w", msgs[0].IdempotencyKey)
	require.NotEmpty(t, msgs[0].Subject)
	require.NotEmpty(t, msgs[0].Text)
	require.NotEmpty(t, msgs[0].HTML)
	require.Contains(t, msgs[0].Text, config.DevCompanyLegalName, "the footer names the company")
	require.Contains(t, msgs[0].HTML, config.DevCompanyLegalName)
}
