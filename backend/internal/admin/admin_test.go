package admin_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/admin"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const secret = "pdl_ntfset_admin_test"

var boss = audit.Actor{UserID: uuid.New(), ClerkUserID: "user_boss", Email: "boss@example.com", IP: "192.0.2.1"}

// fixture is an admin service over a real pipeline whose one handler fails its first call, then writes
// one countable effect per successful run.
type fixture struct {
	db       *gorm.DB
	svc      *admin.Service
	pipeline *webhook.Pipeline
	calls    atomic.Int64
}

func setup(t *testing.T) *fixture {
	t.Helper()
	d := pgtest.New(t)
	f := &fixture{db: d.Gorm}
	sig, err := webhook.NewPaddleSignature([]string{secret}, 5*time.Minute)
	require.NoError(t, err)
	f.pipeline = webhook.New(webhook.Deps{DB: d.Gorm, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, &webhook.Provider{
		Name: webhook.ProviderPaddle, Verifier: sig, SignatureHeader: webhook.PaddleSignatureHeader,
		ReadEnvelope: webhook.PaddleEnvelope,
		Handlers: map[string]webhook.Handler{"effect.happened": func(_ context.Context, tx *gorm.DB, ev webhook.Event) error {
			if f.calls.Add(1) == 1 {
				return errors.New("downstream not ready")
			}
			return tx.Exec(`INSERT INTO audit_logs (actor, action, resource_id) VALUES ('test', 'effect', ?)`, ev.ID).Error
		}},
	})
	f.svc = admin.New(d.Gorm, f.pipeline, nil, credits.New(d.Gorm, credits.Config{}))
	return f
}

// failedDelivery ingests an event whose handler fails and returns its archive row id.
func (f *fixture) failedDelivery(t *testing.T, eventID string) uuid.UUID {
	t.Helper()
	body := []byte(`{"event_id":"` + eventID + `","event_type":"effect.happened","data":{}}`)
	h := http.Header{}
	h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(secret, time.Now(), body))
	_, err := f.pipeline.Ingest(context.Background(), webhook.ProviderPaddle, h, body)
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	var id uuid.UUID
	require.NoError(t, f.db.Raw(`SELECT id FROM webhook_events WHERE event_id = ?`, eventID).Row().Scan(&id))
	return id
}

func (f *fixture) count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, f.db.Raw(q, args...).Scan(&n).Error)
	return n
}

// Eight operators press replay at once: the claim lets exactly one process; every request is audited.
func TestConcurrentReplaysProcessOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := f.failedDelivery(t, "evt_1")
	const n = 8
	start := make(chan struct{})
	statuses := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, err := f.svc.Replay(context.Background(), boss, id)
			if err != nil {
				statuses <- err.Error()
				return
			}
			statuses <- r.Status
		}()
	}
	close(start)
	wg.Wait()
	close(statuses)
	got := map[string]int{}
	for s := range statuses {
		got[s]++
	}
	require.Equal(t, map[string]int{webhook.StatusProcessed: 1, webhook.StatusSkipped: n - 1}, got)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'effect'`))
	require.Equal(t, n, f.count(t, `SELECT count(*) FROM audit_logs WHERE action = ? AND actor = 'admin:boss@example.com'
		AND resource_id = ? AND host(ip) = '192.0.2.1'`, admin.ActionWebhookReplayed, id.String()))
}

func TestReplayRefusalsAreNotAudited(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := f.failedDelivery(t, "evt_1")
	_, err := f.svc.Replay(context.Background(), boss, id)
	require.NoError(t, err)
	var processed uuid.UUID
	require.NoError(t, f.db.Raw(`SELECT id FROM webhook_events WHERE processing_status = 'processed'`).Row().Scan(&processed))

	_, err = f.svc.Replay(context.Background(), boss, processed)
	require.ErrorIs(t, err, webhook.ErrNotReplayable)
	_, err = f.svc.Replay(context.Background(), boss, uuid.New())
	require.ErrorIs(t, err, db.ErrNotFound)
	_, err = admin.New(f.db, nil, nil, credits.New(f.db, credits.Config{})).Replay(context.Background(), boss, id)
	require.ErrorIs(t, err, admin.ErrNoReplayer)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM audit_logs WHERE action = ?`, admin.ActionWebhookReplayed))
}

func TestWebhookEventNeverLoadsTheSignature(t *testing.T) {
	t.Parallel()
	f := setup(t)
	id := f.failedDelivery(t, "evt_1")
	w, err := f.svc.WebhookEvent(context.Background(), id)
	require.NoError(t, err)
	require.True(t, w.HasSignature)
	require.JSONEq(t, `{"event_id":"evt_1","event_type":"effect.happened","data":{}}`, string(w.Payload()))
	require.Equal(t, "downstream not ready", *w.ErrorMessage)
	list, _, err := f.svc.WebhookEvents(context.Background(), admin.WebhookFilter{Status: "FAILED"})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Nil(t, list[0].Body, "lists carry no payload")
}

// A refusal's path is the caller's input: however long or odd, recording it must not fail.
func TestRecordUnauthorizedClipsThePath(t *testing.T) {
	t.Parallel()
	f := setup(t)
	path := "/api/v1/admin/users/" + strings.Repeat("é", 300) + "\x00\xff"
	require.NoError(t, f.svc.RecordUnauthorized(context.Background(), boss, http.MethodGet, path))
	var got models.AuditLog
	require.NoError(t, f.db.Where("action = ?", admin.ActionUnauthorized).Take(&got).Error)
	require.LessOrEqual(t, len(got.ResourceID), 255)
	require.True(t, strings.HasPrefix(path, got.ResourceID))
	require.Equal(t, boss.UserID, *got.UserID)
}

func TestBadCursor(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, c := range []string{"garbage!", "AAAA"} {
		_, _, err := f.svc.Users(context.Background(), admin.UserFilter{Page: admin.Page{Cursor: c}})
		require.ErrorIs(t, err, admin.ErrBadCursor, c)
	}
}

func TestStatsCountsTheLastDayOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.failedDelivery(t, "evt_new")
	require.NoError(t, f.db.Exec(`INSERT INTO webhook_events (provider, event_id, event_type, body, processing_status, created_at)
		VALUES ('clerk', 'msg_old', 'user.created', '{}', 'processed', now() - interval '25 hours')`).Error)
	require.NoError(t, f.db.Exec(`INSERT INTO users (clerk_user_id, deleted_at) VALUES ('user_a', NULL), ('user_b', now())`).Error)
	s, err := f.svc.Stats(context.Background())
	require.NoError(t, err)
	require.Equal(t, admin.UserCounts{Total: 2, Deleted: 1}, s.Users)
	require.Equal(t, []admin.DeliveryCount{{Provider: "paddle", Status: "failed", Count: 1}}, s.Deliveries)
	require.Empty(t, s.Subscriptions)
	require.WithinDuration(t, time.Now(), s.GeneratedAt, time.Minute)
}
