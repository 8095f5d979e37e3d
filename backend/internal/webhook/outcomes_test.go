package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

func mustUUID(t *testing.T, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	require.NoError(t, err)
	return id
}

// recorder is an Observer that keeps every outcome it hears, "type outcome".
type recorder struct {
	mu       sync.Mutex
	outcomes []string
}

func (r *recorder) Delivery(_, eventType, outcome string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes = append(r.outcomes, eventType+" "+outcome)
}

// outcomeFixture is a pipeline whose handlers each end a delivery one way, with an observer and its log
// in a buffer.
type outcomeFixture struct {
	db       *gorm.DB
	pipeline *webhook.Pipeline
	observed *recorder
	log      *bytes.Buffer
}

func outcomeSetup(t *testing.T) *outcomeFixture {
	t.Helper()
	d := pgtest.New(t)
	f := &outcomeFixture{db: d.Gorm, observed: &recorder{}, log: &bytes.Buffer{}}
	sig, err := webhook.NewPaddleSignature([]string{secret}, 5*time.Minute)
	require.NoError(t, err)
	effect := func(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
		return tx.Exec(`INSERT INTO audit_logs (actor, action, resource_id) VALUES ('test', 'effect', ?)`, ev.ID).Error
	}
	f.pipeline = webhook.New(webhook.Deps{DB: d.Gorm, Log: slog.New(slog.NewTextHandler(f.log, nil)), Observer: f.observed},
		&webhook.Provider{Name: webhook.ProviderPaddle, Verifier: sig, SignatureHeader: webhook.PaddleSignatureHeader,
			ReadEnvelope: webhook.PaddleEnvelope, Handlers: map[string]webhook.Handler{
				"effect.happened": effect,
				"handler.fails": func(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
					if err := effect(ctx, tx, ev); err != nil {
						return err
					}
					return errors.New("the provider's API was down")
				},
				"handler.refuses": func(context.Context, *gorm.DB, webhook.Event) error {
					return webhook.Permanent(errors.New("this payload can never be applied"))
				},
				// The effect is held back (db.ExecLater) and fails on its data only at COMMIT: a cast
				// Postgres refuses (SQLSTATE 22P02), which no retry can heal.
				"late.bad.data": func(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
					return db.ExecLater(ctx, tx, `INSERT INTO audit_logs (actor, action, resource_id) VALUES ('test', 'effect', $1::int::text)`, "not a number")
				},
				// Held back too, but failing on a constraint (SQLSTATE 23502): a state a retry may find healed.
				"late.constraint": func(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
					return db.ExecLater(ctx, tx, `INSERT INTO audit_logs (actor, action, resource_id) VALUES (NULL, 'effect', $1)`, ev.ID)
				},
			}})
	return f
}

func (f *outcomeFixture) ingest(t *testing.T, eventID, eventType string) (webhook.Result, error) {
	t.Helper()
	h, body := delivery(eventID, eventType)
	return f.pipeline.Ingest(context.Background(), webhook.ProviderPaddle, h, body)
}

func (f *outcomeFixture) effects(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM audit_logs WHERE action = 'effect'`).Scan(&n).Error)
	return n
}

func (f *outcomeFixture) archived(t *testing.T, eventID string) []string {
	t.Helper()
	var rows []string
	require.NoError(t, f.db.Raw(`SELECT processing_status || ' ' || coalesce(error_message, '') FROM webhook_events
		WHERE event_id = ? ORDER BY created_at, id`, eventID).Scan(&rows).Error)
	return rows
}

// Every way a delivery ends reaches the observer (the metrics) as the archive status, "unauthorized" or
// "error", and the log: a failure at WARN with its error, a success at INFO without one.
func TestEveryDeliveryOutcomeIsObservedAndLogged(t *testing.T) {
	t.Parallel()
	f := outcomeSetup(t)
	res, err := f.ingest(t, "evt_ok", "effect.happened")
	require.NoError(t, err)
	require.Equal(t, webhook.StatusProcessed, res.Status)
	_, err = f.ingest(t, "evt_ok", "effect.happened")
	require.NoError(t, err)
	for range 2 {
		_, err = f.ingest(t, "evt_other", "customer.updated")
		require.NoError(t, err)
	}
	_, err = f.ingest(t, "evt_fails", "handler.fails")
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	_, body := delivery("evt_forged", "effect.happened")
	h := http.Header{}
	h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle("not the secret", time.Now(), body))
	_, err = f.pipeline.Ingest(context.Background(), webhook.ProviderPaddle, h, body)
	require.Error(t, err)

	require.Equal(t, []string{"effect.happened processed", "effect.happened skipped", "customer.updated ignored",
		"customer.updated skipped", "handler.fails failed", " unauthorized"}, f.observed.outcomes)
	require.Equal(t, 1, f.effects(t), "the failed handler's effect rolled back")
	var failures int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM audit_logs WHERE action = 'webhook.failed' AND resource_id = 'paddle:evt_fails'`).
		Scan(&failures).Error)
	require.Equal(t, 1, failures, "the failure is archived and audited")
	logged := f.log.String()
	require.Contains(t, logged, `level=WARN msg="webhook delivery" provider=paddle event_id=evt_fails event_type=handler.fails status=failed`)
	require.Contains(t, logged, `error="the provider's API was down"`)
	require.Regexp(t, `level=INFO msg="webhook delivery" provider=paddle event_id=evt_ok event_type=effect.happened status=processed duration_ms=\d+\n`, logged)
}

// A handler that says its payload can never be applied (webhook.Permanent) fails for good: archived
// failed as unprocessable and answered without an error, so the provider stops retrying; nothing else of
// it is written.
func TestAPermanentHandlerFailureIsArchivedAndAnswered(t *testing.T) {
	t.Parallel()
	f := outcomeSetup(t)
	res, err := f.ingest(t, "evt_refused", "handler.refuses")
	require.NoError(t, err)
	require.Equal(t, webhook.Result{EventID: "evt_refused", Status: webhook.StatusFailed, Reason: webhook.ReasonUnprocessable}, res)
	require.Equal(t, []string{"failed unprocessable_payload: payload cannot be processed: this payload can never be applied"}, f.archived(t, "evt_refused"))
	require.Equal(t, []string{"handler.refuses failed"}, f.observed.outcomes)
}

// A held-back write (db.ExecLater) fails only at COMMIT. Failing on its data (SQLSTATE class 22), it is the
// handler failing on this payload for good: archived failed as unprocessable, answered without an error.
// Failing on a constraint, it may heal: nothing is archived as done, and the error makes the provider retry.
func TestAHeldBackWriteFailingAtCommit(t *testing.T) {
	t.Parallel()
	f := outcomeSetup(t)
	res, err := f.ingest(t, "evt_bad_data", "late.bad.data")
	require.NoError(t, err)
	require.Equal(t, webhook.StatusFailed, res.Status)
	require.Equal(t, webhook.ReasonUnprocessable, res.Reason)
	rows := f.archived(t, "evt_bad_data")
	require.Len(t, rows, 1)
	require.True(t, strings.HasPrefix(rows[0], "failed unprocessable_payload: "), rows[0])

	_, err = f.ingest(t, "evt_constraint", "late.constraint")
	require.Error(t, err)
	require.NotErrorIs(t, err, webhook.ErrHandlerFailed, "the transaction failed, not the handler: %v", err)
	require.Empty(t, f.archived(t, "evt_constraint"), "nothing committed, not even a failure row")
	var claims int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM processed_webhook_events`).Scan(&claims).Error)
	require.Zero(t, claims)
	require.Zero(t, f.effects(t))
	require.Equal(t, []string{"late.bad.data failed", "late.constraint error"}, f.observed.outcomes)
}

// The archive keeps a pushed delivery's signature with it (forensics); a pulled one has none, and a
// replay carries the original's.
func TestTheArchiveKeepsTheSignature(t *testing.T) {
	t.Parallel()
	f := outcomeSetup(t)
	h, body := delivery("evt_pushed", "handler.fails")
	_, err := f.pipeline.Ingest(context.Background(), webhook.ProviderPaddle, h, body)
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	_, pulled := delivery("evt_pulled", "handler.fails")
	_, err = f.pipeline.IngestTrusted(context.Background(), webhook.ProviderPaddle, webhook.SourceSync, http.Header{}, pulled)
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)

	signatures := func(eventID string) []string {
		var out []string
		require.NoError(t, f.db.Raw(`SELECT coalesce(signature, 'NULL') FROM webhook_events WHERE event_id = ? ORDER BY created_at, id`,
			eventID).Scan(&out).Error)
		return out
	}
	require.Equal(t, []string{h.Get(webhook.PaddleSignatureHeader)}, signatures("evt_pushed"))
	require.Equal(t, []string{"NULL"}, signatures("evt_pulled"))

	for _, eventID := range []string{"evt_pushed", "evt_pulled"} {
		var id string
		require.NoError(t, f.db.Raw(`SELECT id::text FROM webhook_events WHERE event_id = ?`, eventID).Scan(&id).Error)
		_, err := f.pipeline.Replay(context.Background(), mustUUID(t, id))
		require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	}
	require.Equal(t, []string{h.Get(webhook.PaddleSignatureHeader), h.Get(webhook.PaddleSignatureHeader)},
		signatures("evt_pushed"), "the replay's failure row carries the original's signature")
	require.Equal(t, []string{"NULL", "NULL"}, signatures("evt_pulled"))
}

// An archived delivery whose body is not JSON is not replayed, even with a readable envelope beside it
// (a row imported or edited by hand: the pipeline itself archives such bytes without an event id).
func TestAnArchivedBodyThatIsNotJSONIsNotReplayed(t *testing.T) {
	t.Parallel()
	f := outcomeSetup(t)
	var id string
	require.NoError(t, f.db.Raw(`INSERT INTO webhook_events (provider, event_id, event_type, source, body, processing_status)
		VALUES ('paddle', 'evt_edited', 'effect.happened', 'webhook', ?, 'failed') RETURNING id::text`,
		[]byte(`{"event_id":"evt_edited","event_type":"effect.happened"`)).Scan(&id).Error)
	_, err := f.pipeline.Replay(context.Background(), mustUUID(t, id))
	require.ErrorIs(t, err, webhook.ErrMalformedArchive)
	require.Zero(t, f.effects(t))
}

// The envelope's limits are the columns': an event id of 255 characters and a type of 128 are stored and
// processed; one more, or a NUL (which Postgres cannot store) in either, makes a malformed delivery (archived
// failed, answered without an error) instead of a failed insert retried forever.
func TestEnvelopeLimitsAreTheColumns(t *testing.T) {
	t.Parallel()
	f := outcomeSetup(t)
	long := func(prefix string, n int) string { return prefix + strings.Repeat("x", n-len(prefix)) }
	for _, tc := range []struct {
		name, id, typ, wantStatus string
	}{
		{"longest id", long("evt_", 255), "effect.happened", webhook.StatusProcessed},
		{"longest type", "evt_long_type", long("t.", 128), webhook.StatusIgnored},
		{"id too long", long("evt_", 256), "effect.happened", webhook.StatusFailed},
		{"type too long", "evt_longer_type", long("t.", 129), webhook.StatusFailed},
		{"NUL in the id", "evt_\x00x", "effect.happened", webhook.StatusFailed},
		{"NUL in the type", "evt_nul_type", "effect.\x00", webhook.StatusFailed},
	} {
		body, err := json.Marshal(map[string]any{"event_id": tc.id, "event_type": tc.typ, "data": map[string]any{}})
		require.NoError(t, err)
		h := http.Header{}
		h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(secret, time.Now(), body))
		res, err := f.pipeline.Ingest(context.Background(), webhook.ProviderPaddle, h, body)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.wantStatus, res.Status, tc.name)
		if tc.wantStatus == webhook.StatusFailed {
			require.Equal(t, webhook.ReasonMalformed, res.Reason, tc.name)
		}
	}
}
