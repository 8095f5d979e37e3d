package catchup_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/billing/paddleapi"
	"github.com/fabrica-saas/fabrica/backend/internal/catchup"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// now is the tests' clock: the syncs see this time.
var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// paddleTypes are the Paddle event types the test handler table takes, in the order the app passes them
// (sorted); the fake event log lists only these.
var paddleTypes = []string{"subscription.created", "transaction.completed"}

const (
	paddleKey = "pdl_sdbx_apikey_catchup_test"
	clerkKey  = "sk_test_catchup"
	// failingUser is the Clerk user whose sign-up hook fails (a deployment's hook that cannot reach its CRM).
	failingUser = "user_crm_down"
)

// env is the catchup service on a real pipeline and a real database, with fake Paddle and Clerk APIs.
type env struct {
	db       *gorm.DB
	pipeline *webhook.Pipeline
	events   *eventLog
	paddle   *paddleapi.Client // reads events
	clerk    *clerkUsersAPI
	clerkURL string // Clerk's fake Backend API, for NewClerkUsers
	svc      *catchup.Service
}

// setup builds the service the way app does: the webhook pipeline with Paddle's provider (a test handler
// table: each event audits itself; one with "fail": true in data fails) and Clerk's (the account
// service's real handlers), Paddle's event log through paddleapi.Client, Clerk's users through
// NewClerkUsers, each against a recording fake server.
func setup(t *testing.T) *env {
	t.Helper()
	d := pgtest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := &env{db: d.Gorm, events: &eventLog{perPage: 2}, clerk: &clerkUsersAPI{}}

	paddleSrv := httptest.NewServer(e.events)
	t.Cleanup(paddleSrv.Close)
	clerkSrv := httptest.NewServer(e.clerk)
	t.Cleanup(clerkSrv.Close)
	var err error
	e.paddle, err = paddleapi.New(paddleapi.Config{BaseURL: paddleSrv.URL, APIKey: paddleKey, MaxRetries: -1})
	require.NoError(t, err)

	e.pipeline = webhook.New(webhook.Deps{DB: d.Gorm, Log: log},
		&webhook.Provider{Name: webhook.ProviderPaddle, ReadEnvelope: webhook.PaddleEnvelope, Handlers: paddleHandlers()},
		&webhook.Provider{Name: webhook.ProviderClerk, ReadEnvelope: webhook.SvixEnvelope, Handlers: accounts(t, d.Gorm, log).ClerkHandlers()},
	)
	e.clerkURL = clerkSrv.URL + "/v1"
	e.svc = catchup.New(catchup.Deps{DB: d.Gorm, Pipeline: e.pipeline, Paddle: e.paddle,
		Clerk: catchup.NewClerkUsers(clerkKey, e.clerkURL), PaddleEventTypes: paddleTypes,
		UserExists: func(ctx context.Context, clerkUserID string) (bool, error) {
			_, ok, err := account.UserIDByClerkIDTx(ctx, d.Gorm, clerkUserID)
			return ok, err
		},
		Log: log, Now: func() time.Time { return now }})
	return e
}

// paddleHandlers is a handler table whose effect is one audit row per event, written in the delivery's
// transaction.
func paddleHandlers() map[string]webhook.Handler {
	h := func(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
		var body struct {
			Data struct {
				Fail bool `json:"fail"`
			} `json:"data"`
		}
		if err := json.Unmarshal(ev.Payload, &body); err != nil {
			return err
		}
		if body.Data.Fail {
			return errors.New("the handler failed on this event")
		}
		return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorPaddle, Action: "test.applied", ResourceType: "event", ResourceID: ev.ID})
	}
	out := map[string]webhook.Handler{}
	for _, typ := range paddleTypes {
		out[typ] = h
	}
	return out
}

// accounts is the account service as app builds it, plus a sign-up hook that fails for failingUser.
func accounts(t *testing.T, db *gorm.DB, log *slog.Logger) *account.Service {
	t.Helper()
	tiers, err := billing.LoadTiers("")
	require.NoError(t, err)
	ledger := credits.New(db, credits.Config{})
	erasures := account.NewErasures("catchup-test-erasure-tombstone-key-0123456789")
	mailer := &jobstest.Mailer{}
	bill := billing.New(billing.Deps{DB: db, Tiers: tiers, Ledger: ledger, Jobs: mailer,
		Signer: billing.NewCheckoutSigner("catchup-test-checkout-secret-0123456789"), Erasures: erasures, Log: log}, billing.Config{})
	crm := account.SignupHook{Name: "crm", Run: func(_ context.Context, _ *gorm.DB, u account.NewUser) error {
		if u.ClerkUserID == failingUser {
			return errors.New("crm unreachable")
		}
		return nil
	}}
	return account.New(account.Deps{DB: db, Ledger: ledger, Jobs: mailer, Billing: bill, Erasures: erasures,
		SignupHooks: []account.SignupHook{account.SignupGrant(ledger, 25, nil), crm}, Log: log}, account.Config{AppName: "Fabrica"})
}

// paddleEvent is a Paddle event of type typ that happened at at, with an event id Paddle would give it.
func paddleEvent(typ string, at time.Time, fail bool) (id string, body []byte) {
	id = catchup.NewEventID(at)
	body, _ = json.Marshal(map[string]any{"event_id": id, "event_type": typ, "occurred_at": at.Format(time.RFC3339Nano),
		"data": map[string]any{"id": "sub_" + id, "fail": fail}})
	return id, body
}

// applied counts the Paddle test handler's effects for an event: 1 once processed, never more.
func (e *env) applied(t *testing.T, eventID string) int {
	t.Helper()
	var n int
	require.NoError(t, e.db.Raw(`SELECT count(*) FROM audit_logs WHERE action = 'test.applied' AND resource_id = ?`, eventID).Scan(&n).Error)
	return n
}

// archived lists an event's archive rows as "source/status", oldest first.
func (e *env) archived(t *testing.T, provider, eventID string) []string {
	t.Helper()
	var rows []string
	require.NoError(t, e.db.Raw(`SELECT source || '/' || processing_status FROM webhook_events
		WHERE provider = ? AND event_id = ? ORDER BY created_at, id`, provider, eventID).Scan(&rows).Error)
	return rows
}

// cursor is the stored Paddle cursor, "" when none.
func (e *env) cursor(t *testing.T) string {
	t.Helper()
	var c []string
	require.NoError(t, e.db.Raw(`SELECT cursor FROM sync_cursors WHERE name = ?`, catchup.PaddleCursor).Scan(&c).Error)
	if len(c) == 0 {
		return ""
	}
	return c[0]
}

// eventLog is Paddle's GET /events: events ascending by id, `after` exclusive, filtered by event_type,
// perPage a page. It records every request; failOn answers the request of that number (from 1) with a
// 503 (the client under test does not retry).
type eventLog struct {
	mu       sync.Mutex
	events   []loggedEvent
	perPage  int
	failOn   int
	requests []logRequest
}

type loggedEvent struct {
	id, typ string
	body    json.RawMessage
}

type logRequest struct {
	After, Types, Auth string
}

func (l *eventLog) add(t *testing.T, body []byte) {
	t.Helper()
	var env struct {
		EventID   string `json:"event_id"`
		EventType string `json:"event_type"`
	}
	require.NoError(t, json.Unmarshal(body, &env))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, loggedEvent{env.EventID, env.EventType, body})
	slices.SortFunc(l.events, func(a, b loggedEvent) int { return strings.Compare(a.id, b.id) })
}

// afters lists the `after` of every request so far.
func (l *eventLog) afters() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, len(l.requests))
	for i, r := range l.requests {
		out[i] = r.After
	}
	return out
}

func (l *eventLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := r.URL.Query()
	l.requests = append(l.requests, logRequest{After: q.Get("after"), Types: q.Get("event_type"), Auth: r.Header.Get("Authorization")})
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path != "/events" || q.Get("order_by") != "id[ASC]" {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"type":"request_error","code":"bad_request","detail":"unexpected"},"meta":{"request_id":"r"}}`)
		return
	}
	if len(l.requests) == l.failOn {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"type":"api_error","code":"service_unavailable","detail":"try later"},"meta":{"request_id":"r"}}`)
		return
	}
	var types []string
	if s := q.Get("event_type"); s != "" {
		types = strings.Split(s, ",")
	}
	page, more := []json.RawMessage{}, false
	for _, e := range l.events {
		if e.id <= q.Get("after") || (types != nil && !slices.Contains(types, e.typ)) {
			continue
		}
		if len(page) == l.perPage {
			more = true
			break
		}
		page = append(page, e.body)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"data": page, "meta": map[string]any{"request_id": "r",
		"pagination": map[string]any{"per_page": l.perPage, "has_more": more}}})
}

// clerkUsersAPI is Clerk's Backend API for users: GET /v1/users (a JSON array, limit and offset, ordered
// as asked) and GET /v1/users/count, which clerk-sdk-go's List calls in turn. It records each request
// as "path?query"; failOn answers the request of that number (from 1) with a 500.
type clerkUsersAPI struct {
	mu       sync.Mutex
	users    []map[string]any
	failOn   int
	requests []string
	auth     []string
}

// addUsers appends users user_<prefix><i> with a verified primary address each.
func (c *clerkUsersAPI) addUsers(prefix string, n int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, n)
	for i := range n {
		id := fmt.Sprintf("user_%s%03d", prefix, i)
		ids[i] = id
		c.users = append(c.users, clerkUser(id))
	}
	return ids
}

func clerkUser(id string) map[string]any {
	return map[string]any{"id": id, "object": "user", "primary_email_address_id": "idn_" + id,
		"email_addresses": []any{map[string]any{"id": "idn_" + id, "object": "email_address",
			"email_address": strings.TrimPrefix(id, "user_") + "@example.com",
			"verification":  map[string]any{"status": "verified", "strategy": "email_code"}}},
		"created_at": now.UnixMilli(), "updated_at": now.UnixMilli()}
}

func (c *clerkUsersAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, r.URL.Path+"?"+r.URL.RawQuery)
	c.auth = append(c.auth, r.Header.Get("Authorization"))
	w.Header().Set("Content-Type", "application/json")
	if len(c.requests) == c.failOn {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"errors":[{"message":"internal","long_message":"internal error","code":"internal_clerk_error"}]}`)
		return
	}
	q := r.URL.Query()
	switch r.URL.Path {
	case "/v1/users":
		offset, _ := strconv.Atoi(q.Get("offset"))
		limit, _ := strconv.Atoi(q.Get("limit"))
		end := min(offset+limit, len(c.users))
		page := []map[string]any{}
		if offset < end {
			page = c.users[offset:end]
		}
		_ = json.NewEncoder(w).Encode(page)
	case "/v1/users/count":
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "total_count", "total_count": len(c.users)})
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"errors":[{"message":"not found","code":"resource_not_found"}]}`)
	}
}

// listRequests is the GET /v1/users requests so far, as "path?query".
func (c *clerkUsersAPI) listRequests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.requests {
		if strings.HasPrefix(r, "/v1/users?") {
			out = append(out, r)
		}
	}
	return out
}
