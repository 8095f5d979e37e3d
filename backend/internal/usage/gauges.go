package usage

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// A gauge is a count the app owns and reports (projects, seats in use): it is set, not added to. A set
// is an event like any other (claimed once per key, kept in the history); among sets arriving out of
// order the one with the latest occurred_at wins. A value above the limit is recorded all the same (it
// is what exists, after a downgrade say); Check then refuses more. Gauges have no thresholds: the
// app that sets them already knows the count.

// SetGauge sets feature's gauge for e.UserID to e.Quantity (the value, 0 allowed), once per e.Key. With
// tx it runs in the caller's transaction (as Record); with nil, in one of its own.
func (s *Service) SetGauge(ctx context.Context, tx *gorm.DB, e Event) (Result, error) {
	if s.tiers.FeatureKind(e.Feature) != billing.FeatureGauge {
		return Result{}, invalid("feature", "%q is not a gauge", e.Feature)
	}
	if e.Quantity < 0 || e.Quantity > MaxQuantity {
		return Result{}, invalid("value", "want 0..%d", MaxQuantity)
	}
	if err := validKey("idempotency_key", e.Key); err != nil {
		return Result{}, err
	}
	if e.UserID == uuid.Nil {
		return Result{}, invalid("user_id", "required")
	}
	if tx != nil {
		return s.setGauge(ctx, tx.WithContext(ctx), e)
	}
	var r Result
	err := db.Pipelined(s.db).WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		r, err = s.setGauge(ctx, tx, e)
		return err
	})
	return r, err
}

func (s *Service) setGauge(ctx context.Context, tx *gorm.DB, e Event) (Result, error) {
	now := s.now()
	if e.OccurredAt.After(now.Add(FutureSkew)) {
		return Result{}, invalid("occurred_at", "more than %s in the future", FutureSkew)
	}
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
	var (
		ours         []pgtype.UUID
		mine         bool
		origID       uuid.UUID
		origFeature  string
		origQuantity int64
	)
	claim := claimRow([]*pending{p}, now)
	claim.Dest = []any{&ours}
	set := &db.Row{SQL: gaugeSQL,
		Args: []any{e.UserID, e.Feature, p.start, e.Quantity, e.Key, p.id, p.ev.OccurredAt, now},
		Dest: []any{&mine, &r.Used, &origID, &origFeature, &origQuantity}}
	if err := db.QueryRows(ctx, tx, claim, set); err != nil {
		return Result{}, fmt.Errorf("set gauge: %w", db.Translate(err))
	}
	if mine {
		r.EventID = p.id
	} else {
		r = duplicateOf(r, origID, origFeature, origQuantity)
	}
	r.Limit, r.Remaining = ptr(p.f.Limit), ptr(max(p.f.Limit-r.Used, 0))
	return r, nil
}
