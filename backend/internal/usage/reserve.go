package usage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Reservations are for a credits feature whose work runs elsewhere (a queue, another service): Reserve
// takes the credits now, with a deadline; Commit makes the usage final; Release gives the credits back.
// A reservation neither committed nor released by its deadline is refunded by the ledger's reconciler
// (a Commit after that charges again: the work was delivered). A reservation is never a final charge
// and never counts: only Commit records the event. Under the hood they are the ledger's spend, complete
// and fail of the job "usage:<key>".

// StatusReserved is a new reservation's status.
const StatusReserved = "reserved"

// Reserve reserves e.Quantity units of the credits feature e.Feature for e.UserID until deadline
// (credits.MinExpiresIn..credits.MaxExpiresIn, required: how long the work may take before the credits
// come back). by is who asks (the audit trail's actor). In tx, as Record. The same key again returns
// the reservation (StatusDuplicate).
func (s *Service) Reserve(ctx context.Context, tx *gorm.DB, by audit.Actor, e Event, deadline time.Duration) (Result, error) {
	switch {
	case s.tiers.FeatureKind(e.Feature) != billing.FeatureCredits:
		return Result{}, invalid("feature", "%q is not a credits feature", e.Feature)
	case deadline < credits.MinExpiresIn || deadline > credits.MaxExpiresIn:
		return Result{}, invalid("deadline", "want %s..%s", credits.MinExpiresIn, credits.MaxExpiresIn)
	}
	if err := s.validate([]Event{e}, "", s.now()); err != nil {
		return Result{}, err
	}
	tx = tx.WithContext(ctx)
	now := s.now()
	subjects, err := billing.UsageContextsTx(ctx, tx, []uuid.UUID{e.UserID}, now)
	if err != nil {
		return Result{}, err
	}
	p, status := s.resolve(subjects, 0, e, now)
	r := Result{Status: status, Feature: e.Feature, Quantity: e.Quantity}
	if p == nil {
		return r, nil
	}
	r.PeriodStart, r.PeriodEnd = p.start, p.end
	claim := claimRow([]*pending{p}, now)
	claim.Args[4] = []string{"reserved"}
	var ours []pgtype.UUID
	claim.Dest = []any{&ours}
	if err := db.QueryRows(ctx, tx, claim); err != nil {
		return Result{}, fmt.Errorf("reserve usage: %w", db.Translate(err))
	}
	if len(ours) == 0 {
		c, err := s.lockClaim(ctx, tx, e.UserID, e.Key)
		if err != nil {
			return Result{}, err
		}
		return duplicateOf(r, c.eventID, c.feature, c.quantity), nil
	}
	by.UserID = e.UserID
	cost := int(e.Quantity) * p.f.CreditsPerUnit
	_, bal, _, err := s.ledger.WithTx(tx).Spend(ctx, by, cost, ledgerKey(e.Key), e.Feature, deadline)
	switch {
	case errors.Is(err, credits.ErrInsufficient):
		r.Status = StatusInsufficientCredits
	case errors.Is(err, credits.ErrJobConflict), errors.Is(err, credits.ErrJobFinished):
		r.Status = StatusKeyConflict // the ledger has this key from before the window: its record stands
	case err != nil:
		return Result{}, fmt.Errorf("reserve usage: %w", err)
	}
	if r.Status != StatusRecorded {
		_, err := db.Exec(ctx, tx, unclaimSQL, e.UserID, e.Key, p.id)
		return r, db.Translate(err)
	}
	r.Status, r.EventID, r.Charged, r.Balance = StatusReserved, p.id, cost, ptrInt(bal)
	return r, nil
}

// Commit makes the reservation of key final: the ledger's job completes and the event is recorded on
// its counter (in the usage month it occurred in). Again after that: StatusDuplicate. ErrNoReservation
// for a key never reserved (or released); credits.ErrJobFinished for one released.
func (s *Service) Commit(ctx context.Context, tx *gorm.DB, by audit.Actor, userID uuid.UUID, key string) (Result, error) {
	tx = tx.WithContext(ctx)
	c, err := s.lockClaim(ctx, tx, userID, key)
	if err != nil {
		return Result{}, err
	}
	r := Result{Status: StatusDuplicate, EventID: c.eventID, Feature: c.feature, Quantity: c.quantity}
	if c.kind != "reserved" {
		return r, nil
	}
	by.UserID = userID
	if _, err := s.ledger.WithTx(tx).CompleteJob(ctx, by, ledgerKey(key)); err != nil {
		return Result{}, fmt.Errorf("commit usage: %w", err)
	}
	now := s.now()
	subjects, err := billing.UsageContextsTx(ctx, tx, []uuid.UUID{userID}, now)
	if err != nil {
		return Result{}, err
	}
	p := &pending{ev: Event{UserID: userID, Feature: c.feature, Quantity: c.quantity, Key: key, OccurredAt: c.occurredAt},
		f: billing.Feature{Name: c.feature, Kind: billing.FeatureCredits}, id: c.eventID}
	p.start, p.end = billing.UsageMonth(subjects[userID].Anchor, c.occurredAt)
	if _, err := db.Exec(ctx, tx, `UPDATE usage_claims SET kind = 'usage', period_start = $3 WHERE user_id = $1 AND key = $2`,
		userID, key, p.start); err != nil {
		return Result{}, db.Translate(err)
	}
	var read counterRead
	if err := db.QueryRows(ctx, tx, read.row(p, now)); err != nil {
		return Result{}, fmt.Errorf("commit usage: %w", db.Translate(err))
	}
	r = read.result(Result{Feature: c.feature, Quantity: c.quantity, PeriodStart: p.start, PeriodEnd: p.end}, p)
	return r, nil
}

// Release gives a reservation's credits back (once, however often it is called) and frees its key.
// credits.ErrJobFinished when it was committed; ErrNoReservation for a key never reserved.
func (s *Service) Release(ctx context.Context, tx *gorm.DB, by audit.Actor, userID uuid.UUID, key, reason string) error {
	tx = tx.WithContext(ctx)
	c, err := s.lockClaim(ctx, tx, userID, key)
	if err != nil && !errors.Is(err, ErrNoReservation) {
		return err
	}
	if err == nil && c.kind != "reserved" {
		return fmt.Errorf("release usage: %w", credits.ErrJobFinished)
	}
	by.UserID = userID
	if _, _, _, err := s.ledger.WithTx(tx).FailJob(ctx, by, ledgerKey(key), reason); err != nil {
		if errors.Is(err, credits.ErrNoDeduct) {
			return ErrNoReservation
		}
		return fmt.Errorf("release usage: %w", err)
	}
	_, err = db.Exec(ctx, tx, `DELETE FROM usage_claims WHERE user_id = $1 AND key = $2 AND kind = 'reserved'`, userID, key)
	return db.Translate(err)
}

// claimRowOf is a claim as Commit and Release read it.
type claimRowOf struct {
	eventID    uuid.UUID
	feature    string
	kind       string
	quantity   int64
	occurredAt time.Time
}

// lockClaim reads the user's claim of key and locks it (a concurrent Commit and Release take turns).
func (s *Service) lockClaim(ctx context.Context, tx *gorm.DB, userID uuid.UUID, key string) (claimRowOf, error) {
	var c claimRowOf
	err := db.QueryRow(ctx, tx, `SELECT event_id, feature, kind, quantity, occurred_at FROM usage_claims
		WHERE user_id = $1 AND key = $2 FOR UPDATE`, []any{userID, key}, &c.eventID, &c.feature, &c.kind, &c.quantity, &c.occurredAt)
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNoReservation
	}
	return c, db.Translate(err)
}
