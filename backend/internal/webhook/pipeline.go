package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// Sentinels of Ingest, besides the Verifier's signature errors (which all mean 401).
var (
	ErrUnknownProvider = errors.New("unknown webhook provider")
	// ErrMalformed is a verified delivery we cannot read (bad JSON, no event id): archived as failed, 400.
	ErrMalformed = errors.New("malformed webhook payload")
	// ErrHandlerFailed means the handler failed and everything it did was rolled back with the claim; the
	// delivery is archived as failed and answered 500 so the provider retries.
	ErrHandlerFailed = errors.New("webhook handler failed")
)

// Result is the outcome of one delivery.
type Result struct {
	EventID string
	// Status is the archive row's processing_status: processed, skipped (duplicate), ignored or failed.
	Status string
}

// Pipeline ingests deliveries for a fixed set of providers.
type Pipeline struct {
	db        *gorm.DB
	log       *slog.Logger
	now       func() time.Time
	providers map[string]*Provider
	observer  Observer
}

// Observer hears every delivery's outcome once its transaction has ended (metrics). Outcomes are the
// archive statuses, "unauthorized" for a failed signature and "error" for a transaction that failed.
type Observer interface {
	Delivery(provider, eventType, outcome string, took time.Duration)
}

// Deps are the pipeline's collaborators. Now is the clock signatures are checked against (time.Now when
// nil); Observer may be nil.
type Deps struct {
	DB       *gorm.DB
	Log      *slog.Logger
	Now      func() time.Time
	Observer Observer
}

// New builds a pipeline for the given providers.
func New(d Deps, providers ...*Provider) *Pipeline {
	if d.Now == nil {
		d.Now = time.Now
	}
	p := &Pipeline{db: d.DB, log: d.Log, now: d.Now, observer: d.Observer, providers: map[string]*Provider{}}
	for _, pr := range providers {
		p.providers[pr.Name] = pr
	}
	return p
}

// Ingest runs one delivery through the pipeline: verify, read the envelope, then claim-dispatch-archive in
// one transaction. An unauthenticated delivery returns the verifier's error and writes nothing at all.
func (p *Pipeline) Ingest(ctx context.Context, provider string, h http.Header, body []byte) (Result, error) {
	prov, ok := p.providers[provider]
	if !ok {
		return Result{}, ErrUnknownProvider
	}
	if err := prov.Verifier.Verify(h, body, p.now()); err != nil {
		p.observe(prov.Name, "", "unauthorized", 0)
		return Result{}, err
	}
	sig := h.Get(prov.SignatureHeader)
	env, err := prov.ReadEnvelope(h, body)
	if err == nil {
		err = env.validate()
	}
	if err != nil {
		return p.archiveMalformed(ctx, prov, env, body, sig, err)
	}
	return p.process(ctx, prov, Event{Provider: prov.Name, ID: env.ID, Type: env.Type, Payload: body}, sig, nil)
}

// process is the one transaction of a delivery. The claim and the handler's effects share a savepoint, so
// a failing handler undoes both while the archive row recording the failure still commits. The archive
// row is written last, with its final status, which saves an UPDATE per delivery; inside one transaction
// the order is invisible to everyone else.
func (p *Pipeline) process(ctx context.Context, prov *Provider, ev Event, sig string, replayOf *uuid.UUID) (Result, error) {
	start := time.Now()
	res := Result{EventID: ev.ID}
	var handlerErr error
	err := p.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		handlerErr = inSavepoint(tx, func() error {
			claimed, err := claim(tx, ev)
			if err != nil {
				return err
			}
			if !claimed {
				// Providers retry on any non-2xx; the (provider, event_id) claim turns every replay into a no-op.
				res.Status = StatusSkipped
				return nil
			}
			h, ok := prov.Handlers[ev.Type]
			if !ok {
				res.Status = StatusIgnored
				return nil
			}
			res.Status = StatusProcessed
			return runHandler(ctx, tx, h, ev)
		})
		var errMsg *string
		if handlerErr != nil {
			res.Status = StatusFailed
			msg := handlerErr.Error()
			errMsg = &msg
			if err := auditFailure(ctx, tx, ev, msg); err != nil {
				return err
			}
		}
		return archive(tx, ev, sig, res.Status, errMsg, replayOf)
	})
	outcome := res.Status
	if err != nil {
		outcome = "" // nothing committed: the observer hears "error", not what the handler was about to do
	}
	p.logDelivery(ctx, ev, outcome, start, firstErr(err, handlerErr))
	switch {
	case err != nil:
		// The transaction itself failed (connection lost, request cancelled): nothing committed, not even
		// the archive row, and the provider's retry starts from scratch.
		return Result{}, fmt.Errorf("ingest %s %s: %w", prov.Name, ev.ID, err)
	case handlerErr != nil:
		return res, fmt.Errorf("%w: %s", ErrHandlerFailed, handlerErr.Error())
	}
	return res, nil
}

// inSavepoint runs fn after a savepoint and, when fn fails, rolls back to it: the claim and every effect
// vanish while the transaction stays usable for the archive row. The fixed name keeps one statement text
// (GORM's nested Transaction makes a random savepoint name per call, one pg_stat_statements entry each).
func inSavepoint(tx *gorm.DB, fn func() error) error {
	if err := tx.Exec("SAVEPOINT webhook_handler").Error; err != nil {
		return err
	}
	err := fn()
	if err != nil {
		if rbErr := tx.Exec("ROLLBACK TO SAVEPOINT webhook_handler").Error; rbErr != nil {
			// The transaction is unusable now; the archive insert will fail and roll everything back.
			return errors.Join(err, rbErr)
		}
	}
	return err
}

// claim inserts the dedup row; false means another delivery of the event already holds it. A concurrent
// duplicate blocks here until the first delivery's transaction ends, then sees its claim (or, if the first
// rolled back, takes the claim itself).
func claim(tx *gorm.DB, ev Event) (bool, error) {
	var ids []string
	err := tx.Raw(`INSERT INTO processed_webhook_events (provider, event_id, event_type) VALUES (?, ?, ?)
		ON CONFLICT ON CONSTRAINT uq_processed_webhook_events_provider_event_id DO NOTHING RETURNING id`,
		ev.Provider, ev.ID, ev.Type).Scan(&ids).Error
	if err != nil {
		return false, fmt.Errorf("claim event: %w", err)
	}
	return len(ids) == 1, nil
}

// runHandler turns a handler panic into an error, so the savepoint rolls back and the archive says why.
func runHandler(ctx context.Context, tx *gorm.DB, h Handler, ev Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panic: %v", r)
		}
	}()
	return h(ctx, tx, ev)
}

// auditFailure records a failed delivery in the audit trail (the archive row holds the detail); it
// commits with the archive row, after the savepoint has undone everything the handler wrote.
func auditFailure(ctx context.Context, tx *gorm.DB, ev Event, msg string) error {
	return audit.Write(ctx, tx, audit.Entry{
		Actor: "system:webhook", Action: "webhook.failed", ResourceType: "webhook_event",
		ResourceID: ev.Provider + ":" + ev.ID,
		Details:    map[string]any{"provider": ev.Provider, "event_id": ev.ID, "event_type": ev.Type, "error": sanitize(msg, 300)},
	})
}

func archive(tx *gorm.DB, ev Event, sig, status string, errMsg *string, replayOf *uuid.UUID) error {
	var sigPtr *string
	if sig != "" {
		sigPtr = &sig
	}
	err := tx.Exec(`INSERT INTO webhook_events
		(provider, event_id, event_type, payload, signature, processing_status, error_message, replay_of)
		VALUES (?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?)`,
		ev.Provider, ev.ID, ev.Type, string(ev.Payload), sigPtr, status, errMsg, replayOf).Error
	if err != nil {
		return fmt.Errorf("archive delivery: %w", err)
	}
	return nil
}

// archiveMalformed records a verified delivery we cannot process. Its body may not even be JSON, so the
// payload is stored as a JSON string; no claim is made, so a corrected redelivery would still process.
func (p *Pipeline) archiveMalformed(ctx context.Context, prov *Provider, env Envelope, body []byte, sig string, cause error) (Result, error) {
	payload, _ := json.Marshal(sanitize(string(body), len(body)))
	ev := Event{Provider: prov.Name, ID: sanitize(env.ID, maxEventIDLen), Type: sanitize(env.Type, maxEventTypeLen), Payload: payload}
	msg := cause.Error()
	if err := archive(p.db.WithContext(ctx), ev, sig, StatusFailed, &msg, nil); err != nil {
		return Result{}, fmt.Errorf("ingest %s: %w", prov.Name, err)
	}
	p.logDelivery(ctx, ev, StatusFailed, time.Now(), cause)
	return Result{EventID: ev.ID, Status: StatusFailed}, fmt.Errorf("%w: %s", ErrMalformed, msg)
}

func (p *Pipeline) logDelivery(ctx context.Context, ev Event, status string, start time.Time, err error) {
	took := time.Since(start)
	defer func() {
		if status == "" {
			status = "error"
		}
		p.observe(ev.Provider, ev.Type, status, took)
	}()
	level := slog.LevelInfo
	if err != nil {
		level = slog.LevelWarn
	}
	// The delivery log line is on the hot path: build its attributes only when it will be written.
	if !p.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("provider", ev.Provider),
		slog.String("event_id", ev.ID),
		slog.String("event_type", ev.Type),
		slog.String("status", status),
		slog.Int64("duration_ms", took.Milliseconds()),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	p.log.LogAttrs(ctx, level, "webhook delivery", attrs...)
}

func (p *Pipeline) observe(provider, eventType, outcome string, took time.Duration) {
	if p.observer != nil {
		p.observer.Delivery(provider, eventType, outcome, took)
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// sanitize makes s storable in a Postgres text or jsonb column: at most n bytes, valid UTF-8, no NUL
// (Postgres rejects both), so recording a malformed delivery can never fail on the delivery's own bytes.
func sanitize(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
