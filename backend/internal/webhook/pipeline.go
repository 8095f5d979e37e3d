package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Sentinels of Ingest, besides the Verifier's signature errors (which all mean 401).
var (
	ErrUnknownProvider = errors.New("unknown webhook provider")
	// ErrHandlerFailed means the handler failed and everything it did was rolled back with the claim; the
	// delivery is archived as failed and answered 500 so the provider retries.
	ErrHandlerFailed = errors.New("webhook handler failed")
	// ErrPermanent marks a handler error that no retry can heal: the payload itself is unusable (it cannot
	// be parsed as the event it claims to be, or holds text Postgres refuses to store). Handlers wrap it with
	// Permanent; the pipeline treats a Postgres data exception (SQLSTATE class 22) the same way.
	ErrPermanent = errors.New("payload cannot be processed")
)

// Permanent marks err as one no retry can heal (see ErrPermanent).
func Permanent(err error) error { return fmt.Errorf("%w: %w", ErrPermanent, err) }

// Sources of a delivery, stored in webhook_events.source.
const (
	SourceWebhook = "webhook" // the provider's push
	SourceSync    = "sync"    // pulled from the provider's API by a reconciliation job
	SourceReplay  = "replay"  // an operator re-ran an archived delivery
)

// Public reasons of a permanent failure, in the answer and in the archive's error_message prefix.
const (
	ReasonMalformed     = "malformed_payload"
	ReasonUnprocessable = "unprocessable_payload"
)

// Result is the outcome of one delivery.
type Result struct {
	EventID string
	// Status is the archive row's processing_status: processed, skipped (duplicate), ignored or failed.
	Status string
	// Reason is set for a permanent failure (Status failed, no error returned): ReasonMalformed or
	// ReasonUnprocessable. The provider is answered 2xx so it stops retrying what can never succeed.
	Reason string
}

// Pipeline ingests deliveries for a fixed set of providers.
type Pipeline struct {
	db *gorm.DB
	// txdb is db whose transactions pipeline their statements (db.Pipelined): deliveries run on it.
	txdb      *gorm.DB
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

// Deps are the pipeline's collaborators. Now is the clock signatures are checked against (app's; the system
// clock when nil); Observer may be nil.
type Deps struct {
	DB       *gorm.DB
	Log      *slog.Logger
	Now      func() time.Time
	Observer Observer
}

// New builds a pipeline for the given providers.
func New(d Deps, providers ...*Provider) *Pipeline {
	d.Now = clock.Or(d.Now)
	p := &Pipeline{db: d.DB, txdb: db.Pipelined(d.DB), log: d.Log, now: d.Now, observer: d.Observer, providers: map[string]*Provider{}}
	for _, pr := range providers {
		p.providers[pr.Name] = pr
	}
	return p
}

// delivery is one arrival of an event, however it came.
type delivery struct {
	ev       Event
	sig      string
	source   string
	replayOf *uuid.UUID
	// subjects are archived with the body (Envelope.Subjects); nil, stored as NULL, when the envelope could
	// not be read.
	subjects []string
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
	return p.accept(ctx, prov, h, body, h.Get(prov.SignatureHeader), SourceWebhook)
}

// IngestTrusted runs a delivery that did not come as a signed push but from the provider's API over TLS
// with our key (source SourceSync): the same envelope reading, claim and handlers as Ingest, so an event
// both pushed and pulled has exactly one effect. There is no HTTP route to it.
func (p *Pipeline) IngestTrusted(ctx context.Context, provider, source string, h http.Header, body []byte) (Result, error) {
	prov, ok := p.providers[provider]
	if !ok {
		return Result{}, ErrUnknownProvider
	}
	return p.accept(ctx, prov, h, body, "", source)
}

func (p *Pipeline) accept(ctx context.Context, prov *Provider, h http.Header, body []byte, sig, source string) (Result, error) {
	env, err := prov.ReadEnvelope(h, body)
	if err == nil {
		err = env.validate()
	}
	d := delivery{ev: Event{Provider: prov.Name, ID: env.ID, Type: env.Type, Payload: body}, sig: sig, source: source,
		subjects: env.Subjects}
	if err != nil {
		return p.archiveMalformed(ctx, d, err)
	}
	return p.process(ctx, prov, d)
}

// Known reports whether (provider, eventID) is already claimed: a pull can skip an event a push already
// brought without writing a row for it.
func (p *Pipeline) Known(ctx context.Context, provider, eventID string) (bool, error) {
	var known bool
	err := p.db.WithContext(ctx).Raw(`SELECT EXISTS (SELECT 1 FROM processed_webhook_events WHERE provider = ? AND event_id = ?)`,
		provider, eventID).Row().Scan(&known)
	if err != nil {
		return false, fmt.Errorf("known event: %w", err)
	}
	return known, nil
}

// process is the one transaction of a delivery. Its first statement claims the event and writes the
// archive row together, with the status the delivery will have if the transaction commits: skipped when
// another delivery holds the claim, ignored when no handler wants the type, processed otherwise. For a
// type no handler takes, that one statement is the whole delivery, run without a transaction around it;
// a duplicate of a handled type is BEGIN, the statement, COMMIT. A failing handler rolls
// back everything, claim and archive row included, and recordFailure archives the failure in a
// transaction of its own. (The row is written with its final status up front, which saves an UPDATE; a
// savepoint around the handler would cost a round trip on every successful delivery to save one on the
// rare failure.)
func (p *Pipeline) process(ctx context.Context, prov *Provider, d delivery) (Result, error) {
	start := time.Now()
	ev := d.ev
	res := Result{EventID: ev.ID}
	h, handled := prov.Handlers[ev.Type]
	intended := StatusIgnored
	if handled {
		intended = StatusProcessed
	}
	if !handled {
		// Nothing but the claim and the archive row, and they are one statement: atomic on its own, with
		// no transaction around it (one round trip instead of three).
		status, err := claimAndArchive(ctx, p.db, d, intended)
		res.Status = status
		outcome := status
		if err != nil {
			outcome = ""
		}
		p.logDelivery(ctx, ev, outcome, start, err)
		if err != nil {
			return Result{}, fmt.Errorf("ingest %s %s: %w", prov.Name, ev.ID, err)
		}
		return res, nil
	}
	var handlerErr error
	err := p.txdb.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		status, err := claimAndArchive(ctx, tx, d, intended)
		if err != nil {
			return err
		}
		res.Status = status
		if status != StatusProcessed {
			// Providers retry on any non-2xx; the (provider, event_id) claim turns every replay into a no-op.
			return nil
		}
		handlerErr = runHandler(ctx, tx, h, ev)
		return handlerErr
	})
	if handlerErr == nil && err != nil && res.Status == StatusProcessed && permanent(err) {
		// A write the handler had held back (db.ExecLater) failed on its data at COMMIT: that is the
		// handler failing on this payload.
		handlerErr = err
	}
	if handlerErr != nil {
		// The handler's transaction rolled back whole; whatever err says beyond handlerErr (a failed
		// rollback) only means the connection is gone, which recordFailure will find out too.
		res.Status = StatusFailed
		msg := handlerErr.Error()
		if permanent(handlerErr) {
			res.Reason = ReasonUnprocessable
			msg = ReasonUnprocessable + ": " + msg
		}
		err = p.recordFailure(ctx, d, sanitize(msg, maxErrorLen))
	}
	outcome := res.Status
	if err != nil {
		outcome = "" // nothing committed: the observer hears "error", not what the handler was about to do
	}
	p.logDelivery(ctx, ev, outcome, start, firstErr(err, handlerErr))
	switch {
	case err != nil:
		// A transaction failed (connection lost, request cancelled): not even the failure's archive row
		// committed, and the provider's retry starts from scratch.
		return Result{}, fmt.Errorf("ingest %s %s: %w", prov.Name, ev.ID, err)
	case handlerErr != nil && res.Reason == "":
		return res, fmt.Errorf("%w: %s", ErrHandlerFailed, handlerErr.Error())
	}
	// A permanent failure is archived with its reason and answered as handled: retrying cannot help, and
	// an operator can replay it from the archive once the code or data is fixed.
	return res, nil
}

// permanent reports whether a handler error can never heal on retry: the handler said so, or Postgres
// refused the payload's data itself (SQLSTATE class 22: a NUL byte or invalid text, a value out of range).
func permanent(err error) bool {
	var pgErr *pgconn.PgError
	return errors.Is(err, ErrPermanent) || (errors.As(err, &pgErr) && strings.HasPrefix(pgErr.Code, "22"))
}

// claimAndArchiveSQL inserts the dedup claim and the archive row in one statement. The claim either
// inserts (the delivery proceeds with status $7) or finds another delivery's claim: the archive row
// then says skipped. A concurrent duplicate blocks on the claim's unique index until the first delivery's
// transaction ends, then sees its claim (or, if the first rolled back, takes the claim itself).
const claimAndArchiveSQL = `WITH claim AS (
		INSERT INTO processed_webhook_events (id, provider, event_id, event_type) VALUES ($9, $1, $2, $3)
		ON CONFLICT ON CONSTRAINT uq_processed_webhook_events_provider_event_id DO NOTHING RETURNING 1)
	INSERT INTO webhook_events (id, provider, event_id, event_type, source, body, signature, processing_status, replay_of,
	                            subjects)
	SELECT $10, $1, $2, $3, $4, $5, $6, CASE WHEN EXISTS (SELECT FROM claim) THEN $7 ELSE 'skipped' END, $8, $11
	RETURNING processing_status`

// claimAndArchive runs claimAndArchiveSQL and returns the status the archive row took.
func claimAndArchive(ctx context.Context, tx *gorm.DB, d delivery, intended string) (string, error) {
	var status string
	err := db.QueryRow(ctx, tx, claimAndArchiveSQL,
		[]any{d.ev.Provider, d.ev.ID, d.ev.Type, d.source, []byte(d.ev.Payload), sigOrNil(d.sig), intended, d.replayOf,
			newID(), newID(), d.subjects},
		&status)
	if err != nil {
		return "", fmt.Errorf("claim event: %w", err)
	}
	return status, nil
}

// runHandler turns a handler panic into an error, so the transaction rolls back and the archive says why.
func runHandler(ctx context.Context, tx *gorm.DB, h Handler, ev Event) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panic: %v", r)
		}
	}()
	return h(ctx, tx, ev)
}

// recordFailure archives a failed delivery and audits it, in one transaction of its own: the handler's
// has rolled back everything, so the archive row holds the detail and no claim exists (the provider's
// retry, or an operator's replay, processes the event afresh).
func (p *Pipeline) recordFailure(ctx context.Context, d delivery, msg string) error {
	return p.txdb.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := archive(ctx, tx, d, StatusFailed, &msg); err != nil {
			return err
		}
		ev := d.ev
		return audit.Write(ctx, tx, audit.Entry{
			Actor: "system:webhook", Action: ActionFailed, ResourceType: "webhook_event",
			ResourceID: failureID(ev.Provider, ev.ID),
			Details:    map[string]any{"provider": ev.Provider, "event_id": ev.ID, "event_type": ev.Type, "error": sanitize(msg, 300)},
		})
	})
}

// archive writes an archive row without a claim (a failure). The body is stored as the exact bytes
// received (BYTEA): whatever was signed is storable.
func archive(ctx context.Context, tx *gorm.DB, d delivery, status string, errMsg *string) error {
	_, err := db.Exec(ctx, tx, `INSERT INTO webhook_events
		(id, provider, event_id, event_type, source, body, signature, processing_status, error_message, replay_of, subjects)
		VALUES ($10, $1, $2, $3, $4, $5, $6, $7, $8, $9, $11)`,
		d.ev.Provider, d.ev.ID, d.ev.Type, d.source, []byte(d.ev.Payload), sigOrNil(d.sig), status, errMsg, d.replayOf, newID(),
		d.subjects)
	if err != nil {
		return fmt.Errorf("archive delivery: %w", err)
	}
	return nil
}

// newID is a claim's or an archive row's id: a UUIDv7, which starts with the time, so each insert lands at
// the right edge of the id index instead of on a random page of it. Both tables grow by millions of rows;
// with random ids (the columns' gen_random_uuid() default) every insert touched a cold leaf page, and
// after each checkpoint wrote it whole to the WAL: with 10 million rows present, Postgres spent twice the
// CPU per delivery (docs/benchmarks.md, T5).
func newID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.New() // the system's randomness failed for the v7 bits; a v4 id is still an id
	}
	return id
}

// sigOrNil stores an absent signature (a pulled event) as NULL.
func sigOrNil(sig string) *string {
	if sig == "" {
		return nil
	}
	return &sig
}

// archiveMalformed records a verified delivery whose envelope we cannot read (not JSON, no event id...),
// raw, as failed. No claim is made, so a corrected redelivery would still process; the provider is
// answered 2xx, because no retry of these bytes can ever succeed.
func (p *Pipeline) archiveMalformed(ctx context.Context, d delivery, cause error) (Result, error) {
	d.ev.ID, d.ev.Type = sanitize(d.ev.ID, maxEventIDLen), sanitize(d.ev.Type, maxEventTypeLen)
	msg := sanitize(ReasonMalformed+": "+cause.Error(), maxErrorLen)
	if err := archive(ctx, p.db, d, StatusFailed, &msg); err != nil {
		return Result{}, fmt.Errorf("ingest %s: %w", d.ev.Provider, err)
	}
	p.logDelivery(ctx, d.ev, StatusFailed, time.Now(), cause)
	return Result{EventID: d.ev.ID, Status: StatusFailed, Reason: ReasonMalformed}, nil
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
