package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/catchup"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// fakeEventLog is Paddle's GET /events: events ascending by id, `after` exclusive, pages of per_page.
type fakeEventLog struct {
	mu     sync.Mutex
	events []paddleLogEvent
	gets   int
}

type paddleLogEvent struct {
	id   string
	body json.RawMessage
}

func (f *fakeEventLog) add(t *testing.T, body []byte) string {
	t.Helper()
	var env struct {
		EventID string `json:"event_id"`
	}
	require.NoError(t, json.Unmarshal(body, &env))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, paddleLogEvent{env.EventID, body})
	sort.Slice(f.events, func(i, j int) bool { return f.events[i].id < f.events[j].id })
	return env.EventID
}

func (f *fakeEventLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if r.URL.Path != "/events" || r.URL.Query().Get("order_by") != "id[ASC]" || r.Header.Get("Authorization") == "" {
		http.Error(w, `{"error":{"type":"request_error","code":"bad_request","detail":"unexpected"}}`, http.StatusBadRequest)
		return
	}
	after := r.URL.Query().Get("after")
	var page []json.RawMessage
	more := false
	for _, e := range f.events {
		if e.id <= after {
			continue
		}
		if len(page) == 2 { // tiny pages: the test crosses page boundaries
			more = true
			break
		}
		page = append(page, e.body)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"data": page, "meta": map[string]any{"request_id": "r",
		"pagination": map[string]any{"per_page": 2, "has_more": more}}})
}

// catchupEnv is an app whose Paddle client talks to a fake event log.
func catchupEnv(t *testing.T) (*apiEnv, *fakeEventLog, *trigger.Builder) {
	t.Helper()
	log := &fakeEventLog{}
	srv := httptest.NewServer(log)
	t.Cleanup(srv.Close)
	e := newAdminEnv(t)
	e.app = appOn(t, e.db, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "PADDLE_API_KEY": "pdl_sdbx_apikey_test",
		"PADDLE_API_URL": srv.URL}, Options{})
	return e, log, triggerBuilder(t, e.app)
}

// paddleEvent builds a signed-checkout subscription event whose id Paddle would have given it at `at`.
func paddleEvent(t *testing.T, b *trigger.Builder, user, event string, at time.Time) trigger.Delivery {
	t.Helper()
	d, err := b.Build(trigger.Spec{Provider: webhook.ProviderPaddle, Event: event, User: user,
		EventID: catchup.NewEventID(at), At: at})
	require.NoError(t, err)
	return d
}

// An event never delivered by webhook is processed by the sync; one delivered and then listed is a
// duplicate; a run that crashed after its transactions but before the cursor moved reprocesses nothing;
// two instances syncing at once double nothing.
func TestPaddleEventsSyncPullsWhatTheWebhooksMissed(t *testing.T) {
	t.Parallel()
	e, events, b := catchupEnv(t)
	now := time.Now()
	pushed := paddleEvent(t, b, "user_pushed", "subscription.created", now.Add(-2*time.Hour))
	missed := paddleEvent(t, b, "user_missed", "subscription.created", now.Add(-time.Hour))
	renewal := paddleEvent(t, b, "user_missed", "transaction.completed", now.Add(-30*time.Minute))
	for _, d := range []trigger.Delivery{pushed, missed, renewal} {
		events.add(t, d.Body)
	}
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderPaddle, pushed.Header, pushed.Body).Code)

	rep, err := e.app.RunTask(context.Background(), "paddle-events-sync")
	require.NoError(t, err)
	require.Equal(t, map[string]int{"listed": 3, "skipped": 1, "processed": 2, "failed": 0}, map[string]int(rep))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM webhook_events WHERE event_id = ? AND source = 'sync' AND processing_status = 'processed'`, missed.EventID))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM webhook_events WHERE event_id = ?`, pushed.EventID), "a duplicate writes nothing")
	balance := func(user string) int64 {
		return e.count(t, `SELECT coalesce(sum(delta), 0) FROM credit_transactions c JOIN users u ON u.id = c.user_id WHERE u.clerk_user_id = ?`, user)
	}
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM credit_transactions c JOIN users u ON u.id = c.user_id
		WHERE u.clerk_user_id = 'user_missed' AND c.kind = 'grant'`), "its subscription and its renewal, once each")
	require.Equal(t, int64(1000), balance("user_missed"), "the first month's allowance ended when the renewal's began")

	// A crash between the transactions and the cursor update: the next run re-reads them.
	require.NoError(t, e.db.Gorm.Exec(`DELETE FROM sync_cursors`).Error)
	second := appOn(t, e.db, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "PADDLE_API_KEY": "pdl_sdbx_apikey_test",
		"PADDLE_API_URL": e.app.cfg.PaddleAPIURL}, Options{})
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, a := range []*App{e.app, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, err := a.RunTask(context.Background(), "paddle-events-sync")
			if err == nil && r["processed"] != 0 {
				t.Errorf("a re-read processed %d events", r["processed"])
			}
		}()
	}
	close(start)
	wg.Wait()
	require.Equal(t, int64(1000), balance("user_missed"), "nothing reprocessed")
	require.Equal(t, int64(1000), balance("user_pushed"))
	var cursor string
	require.NoError(t, e.db.Gorm.Raw(`SELECT cursor FROM sync_cursors WHERE name = 'paddle-events'`).Scan(&cursor).Error)
	require.Equal(t, renewal.EventID, cursor, "past the last committed event")
}

// `fabrica sync paddle --since` backfills from a time: events older than it are not read.
func TestPaddleBackfillSince(t *testing.T) {
	t.Parallel()
	e, events, b := catchupEnv(t)
	old := paddleEvent(t, b, "user_old", "subscription.created", time.Now().Add(-100*time.Hour))
	recent := paddleEvent(t, b, "user_new", "subscription.created", time.Now().Add(-10*time.Hour))
	events.add(t, old.Body)
	events.add(t, recent.Body)
	rep, err := e.app.SyncPaddle(context.Background(), 72*time.Hour)
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 1, Processed: 1}, rep)
	rep, err = e.app.SyncPaddle(context.Background(), 120*time.Hour)
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 2, Skipped: 1, Processed: 1}, rep)
}

type fakeClerkUsers struct{ users []catchup.ClerkUser }

func (f *fakeClerkUsers) ListUsers(_ context.Context, offset, limit int) ([]catchup.ClerkUser, int, error) {
	end := min(offset+limit, len(f.users))
	if offset >= end {
		return nil, len(f.users), nil
	}
	return f.users[offset:end], len(f.users), nil
}

// `fabrica sync clerk-users` creates the users we are missing through user.created's handler: signup
// credits and one welcome email, once, however often it runs and whatever webhook arrives later.
func TestClerkUsersSyncCreatesTheMissing(t *testing.T) {
	t.Parallel()
	clerk := &fakeClerkUsers{}
	for _, id := range []string{"user_here", "user_gone1", "user_gone2"} {
		u := map[string]any{"id": id, "object": "user", "primary_email_address_id": "idn_1", "updated_at": time.Now().UnixMilli(),
			"email_addresses": []any{map[string]any{"id": "idn_1", "email_address": strings.TrimPrefix(id, "user_") + "@example.com", "verification": verified}}}
		raw, err := json.Marshal(u)
		require.NoError(t, err)
		clerk.users = append(clerk.users, catchup.ClerkUser{ID: id, JSON: raw})
	}
	e := newAdminEnv(t)
	e.app = appOn(t, e.db, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM()}, Options{ClerkUsers: clerk})
	h, body := clerkEvent(t, "msg_here", "user.created", "user_here", "here@example.com", time.Now().UnixMilli())
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderClerk, h, body).Code)

	rep, err := e.app.SyncClerkUsers(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 3, Skipped: 1, Processed: 2}, rep)
	rep, err = e.app.SyncClerkUsers(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 3, Skipped: 3}, rep)
	// The real user.created arrives late: the keyed grant makes it a no-op.
	h, body = clerkEvent(t, "msg_gone1", "user.created", "user_gone1", "gone1@example.com", time.Now().UnixMilli())
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderClerk, h, body).Code)
	require.Equal(t, int64(3), e.count(t, `SELECT count(*) FROM credit_transactions WHERE kind = 'grant'`))
	require.Equal(t, int64(3), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'email'`))
}
