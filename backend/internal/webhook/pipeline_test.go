package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const secret = "pdl_ntfset_test_secret"

// fixture is a pipeline with one Paddle-shaped provider whose handlers write countable effects.
type fixture struct {
	db       *gorm.DB
	pipeline *webhook.Pipeline
	calls    atomic.Int64
	// behave decides what the "effect" handler does on its n-th call (1-based); nil means succeed.
	behave func(ctx context.Context, n int64) error
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
		Handlers: map[string]webhook.Handler{"effect.happened": func(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
			n := f.calls.Add(1)
			// The effect is written first, so a failure after it proves the rollback.
			if err := tx.Exec(`INSERT INTO audit_logs (actor, action, resource_id) VALUES ('test', 'effect', ?)`, ev.ID).Error; err != nil {
				return err
			}
			if f.behave != nil {
				return f.behave(ctx, n)
			}
			return nil
		}},
	})
	return f
}

func delivery(eventID, eventType string) (http.Header, []byte) {
	body := []byte(fmt.Sprintf(`{"event_id":%q,"event_type":%q,"occurred_at":"2026-12-01T10:00:00Z","data":{}}`, eventID, eventType))
	h := http.Header{}
	h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(secret, time.Now(), body))
	return h, body
}

func (f *fixture) ingest(ctx context.Context, eventID, eventType string) (webhook.Result, error) {
	h, body := delivery(eventID, eventType)
	return f.pipeline.Ingest(ctx, webhook.ProviderPaddle, h, body)
}

type counts struct{ effects, claims, processed, skipped, failed, ignored int64 }

func (f *fixture) counts(t *testing.T) counts {
	t.Helper()
	var c counts
	require.NoError(t, f.db.Raw(`SELECT
		(SELECT count(*) FROM audit_logs WHERE action = 'effect'),
		(SELECT count(*) FROM processed_webhook_events),
		(SELECT count(*) FROM webhook_events WHERE processing_status = 'processed'),
		(SELECT count(*) FROM webhook_events WHERE processing_status = 'skipped'),
		(SELECT count(*) FROM webhook_events WHERE processing_status = 'failed'),
		(SELECT count(*) FROM webhook_events WHERE processing_status = 'ignored')`).
		Row().Scan(&c.effects, &c.claims, &c.processed, &c.skipped, &c.failed, &c.ignored))
	return c
}

func TestReplayTenTimesOneEffect(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := range 10 {
		res, err := f.ingest(context.Background(), "evt_1", "effect.happened")
		require.NoError(t, err)
		want := webhook.StatusSkipped
		if i == 0 {
			want = webhook.StatusProcessed
		}
		require.Equal(t, want, res.Status)
	}
	require.Equal(t, counts{effects: 1, claims: 1, processed: 1, skipped: 9}, f.counts(t))
}

// Twenty deliveries of one event behind a start barrier: the claim serialises them and exactly one effect
// commits. Without the UNIQUE claim every goroutine would write its effect.
func TestConcurrentDuplicatesOneEffect(t *testing.T) {
	t.Parallel()
	f := setup(t)
	const n = 20
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := f.ingest(context.Background(), "evt_race", "effect.happened")
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, counts{effects: 1, claims: 1, processed: 1, skipped: n - 1}, f.counts(t))
}

func TestHandlerFailureRollsBackClaimAndEffectsThenRetryProcesses(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.behave = func(_ context.Context, n int64) error {
		if n == 1 {
			return errors.New("downstream exploded")
		}
		return nil
	}
	res, err := f.ingest(context.Background(), "evt_fail", "effect.happened")
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	require.Equal(t, webhook.StatusFailed, res.Status)
	require.Equal(t, counts{failed: 1}, f.counts(t), "the effect and the claim rolled back; the archive row stayed")
	var msg string
	require.NoError(t, f.db.Raw(`SELECT error_message FROM webhook_events WHERE processing_status = 'failed'`).Scan(&msg).Error)
	require.Equal(t, "downstream exploded", msg)

	res, err = f.ingest(context.Background(), "evt_fail", "effect.happened")
	require.NoError(t, err)
	require.Equal(t, webhook.StatusProcessed, res.Status)
	require.Equal(t, counts{effects: 1, claims: 1, processed: 1, failed: 1}, f.counts(t))
}

func TestHandlerPanicIsAFailure(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.behave = func(context.Context, int64) error { panic("nil map") }
	_, err := f.ingest(context.Background(), "evt_panic", "effect.happened")
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	require.ErrorContains(t, err, "handler panic: nil map")
	require.Equal(t, counts{failed: 1}, f.counts(t))
}

// The first delivery holds the claim while failing slowly; a concurrent duplicate waits on the claim and,
// when the first rolls back, processes the event itself.
func TestConcurrentDuplicateProcessesWhenFirstRollsBack(t *testing.T) {
	t.Parallel()
	f := setup(t)
	inFirst, release := make(chan struct{}), make(chan struct{})
	f.behave = func(_ context.Context, n int64) error {
		if n == 1 {
			close(inFirst)
			<-release
			return errors.New("first attempt failed")
		}
		return nil
	}
	first := make(chan error, 1)
	go func() { _, err := f.ingest(context.Background(), "evt_handover", "effect.happened"); first <- err }()
	select {
	case <-inFirst:
	case err := <-first:
		// Fail rather than wait forever: a delivery that never reaches its handler would hang the test.
		t.Fatalf("the first delivery ended before its handler ran: %v", err)
	}
	second := make(chan webhook.Result, 1)
	go func() {
		res, err := f.ingest(context.Background(), "evt_handover", "effect.happened")
		require.NoError(t, err)
		second <- res
	}()
	// Give the second delivery time to block on the claim row, then let the first fail.
	require.Eventually(t, func() bool { return waitingOnLock(t, f.db) }, 5*time.Second, 10*time.Millisecond)
	close(release)
	require.ErrorIs(t, <-first, webhook.ErrHandlerFailed)
	require.Equal(t, webhook.StatusProcessed, (<-second).Status)
	require.Equal(t, counts{effects: 1, claims: 1, processed: 1, failed: 1}, f.counts(t))
}

// waitingOnLock reports whether some session of this database is blocked on a lock.
func waitingOnLock(t *testing.T, db *gorm.DB) bool {
	var n int
	require.NoError(t, db.Raw(`SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n).Error)
	return n > 0
}

func TestUnknownTypeIsClaimedAndIgnored(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for range 2 {
		_, err := f.ingest(context.Background(), "evt_other", "customer.updated")
		require.NoError(t, err)
	}
	require.Equal(t, counts{claims: 1, ignored: 1, skipped: 1}, f.counts(t))
}

func TestMalformedVerifiedDeliveryIsArchivedAsFailed(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for name, body := range map[string]string{
		"bad json":    `{"event_id": "evt_1", `,
		"no event id": `{"event_type":"effect.happened"}`,
		"nul bytes":   "{\"event_id\":\"evt\\u0000x\",\"event_type\":\"a\"}\x00",
	} {
		h := http.Header{}
		h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(secret, time.Now(), []byte(body)))
		res, err := f.pipeline.Ingest(context.Background(), webhook.ProviderPaddle, h, []byte(body))
		// Answered as handled (no error: the HTTP layer says 200), because Paddle and Svix retry anything
		// else for days and these bytes can never succeed.
		require.NoError(t, err, name)
		require.Equal(t, webhook.StatusFailed, res.Status, name)
		require.Equal(t, webhook.ReasonMalformed, res.Reason, name)
	}
	require.Equal(t, counts{failed: 3}, f.counts(t), "no claim, no effect, each delivery archived")
}

func TestUnauthenticatedDeliveriesWriteNothing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, body := delivery("evt_1", "effect.happened")
	for name, hdr := range map[string]string{
		"missing":  "",
		"garbage":  "nonsense",
		"tampered": webhook.SignPaddle(secret, time.Now(), append([]byte(" "), body...)),
		"wrong":    webhook.SignPaddle("another-secret", time.Now(), body),
		"stale":    webhook.SignPaddle(secret, time.Now().Add(-6*time.Minute), body),
		"future":   webhook.SignPaddle(secret, time.Now().Add(6*time.Minute), body),
	} {
		h := http.Header{}
		if hdr != "" {
			h.Set(webhook.PaddleSignatureHeader, hdr)
		}
		_, err := f.pipeline.Ingest(context.Background(), webhook.ProviderPaddle, h, body)
		require.Error(t, err, name)
		require.True(t, errors.Is(err, webhook.ErrMissingSignature) || errors.Is(err, webhook.ErrMalformedSignature) ||
			errors.Is(err, webhook.ErrBadSignature) || errors.Is(err, webhook.ErrStaleSignature), name)
	}
	require.Equal(t, counts{}, f.counts(t))
	var archived int64
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM webhook_events`).Scan(&archived).Error)
	require.Zero(t, archived)
}

// A request cancelled mid-transaction (client gone, process dying) commits nothing, not even its archive
// row; the provider's retry then processes the event exactly once.
func TestCancelledDeliveryCommitsNothing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	f.behave = func(hctx context.Context, n int64) error {
		if n == 1 {
			cancel()
			<-hctx.Done()
		}
		return nil
	}
	_, err := f.ingest(ctx, "evt_cancel", "effect.happened")
	require.Error(t, err)
	require.Equal(t, counts{}, f.counts(t))

	res, err := f.ingest(context.Background(), "evt_cancel", "effect.happened")
	require.NoError(t, err)
	require.Equal(t, webhook.StatusProcessed, res.Status)
	require.Equal(t, counts{effects: 1, claims: 1, processed: 1}, f.counts(t))
}

func (f *fixture) archiveID(t *testing.T, status string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, f.db.Raw(`SELECT id FROM webhook_events WHERE processing_status = ? ORDER BY created_at LIMIT 1`, status).Row().Scan(&id))
	return id
}

func TestReplayFailedDeliveryProcessesOnceAndProcessedIsRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.behave = func(_ context.Context, n int64) error {
		if n == 1 {
			return errors.New("transient")
		}
		return nil
	}
	_, err := f.ingest(context.Background(), "evt_replay", "effect.happened")
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	failed := f.archiveID(t, webhook.StatusFailed)

	res, err := f.pipeline.Replay(context.Background(), failed)
	require.NoError(t, err)
	require.Equal(t, webhook.StatusProcessed, res.Status)
	res, err = f.pipeline.Replay(context.Background(), failed)
	require.NoError(t, err)
	require.Equal(t, webhook.StatusSkipped, res.Status, "the claim makes a second replay a no-op")
	require.Equal(t, counts{effects: 1, claims: 1, processed: 1, skipped: 1, failed: 1}, f.counts(t))

	var linked int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM webhook_events WHERE replay_of = ?`, failed).Scan(&linked).Error)
	require.Equal(t, 2, linked)

	_, err = f.pipeline.Replay(context.Background(), f.archiveID(t, webhook.StatusProcessed))
	require.ErrorIs(t, err, webhook.ErrNotReplayable)
	_, err = f.pipeline.Replay(context.Background(), uuid.New())
	require.ErrorIs(t, err, db.ErrNotFound)
}

func TestPurgeRemovesOnlyOldArchiveRowsAndNeverClaims(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := range 7 {
		_, err := f.ingest(context.Background(), fmt.Sprintf("evt_%d", i), "effect.happened")
		require.NoError(t, err)
	}
	// Age five of them past the retention window (into a partition of their own month).
	_, err := webhook.EnsurePartitions(context.Background(), f.db, time.Now().Add(-100*24*time.Hour))
	require.NoError(t, err)
	require.NoError(t, f.db.Exec(`UPDATE webhook_events SET created_at = now() - interval '100 days'
		WHERE event_id IN ('evt_0', 'evt_1', 'evt_2', 'evt_3', 'evt_4')`).Error)
	n, err := webhook.PurgeArchive(context.Background(), f.db, time.Now().Add(-90*24*time.Hour), 2)
	require.NoError(t, err)
	require.Equal(t, 5, n, "in batches of 2 until done")
	c := f.counts(t)
	require.Equal(t, int64(2), c.processed, "recent rows stay")
	require.Equal(t, int64(7), c.claims, "dedup claims are never purged")

	// A replay of a purged event is still recognised as a duplicate.
	res, err := f.ingest(context.Background(), "evt_0", "effect.happened")
	require.NoError(t, err)
	require.Equal(t, webhook.StatusSkipped, res.Status)
}
