package usage

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Entitlement is one feature as a user has it now.
type Entitlement struct {
	Feature string
	Kind    string
	Enabled bool
	// Limit is nil without one (credits features, switches, a disabled feature).
	Limit *int64
	// Overage of a counter (block or allow).
	Overage string
	// Used: this usage month's count (counters, credits features) or the gauge's value.
	Used int64
	// Remaining is what may still be used: the limit less Used (never below 0), or for a credits
	// feature the units the balance covers; nil for a switch.
	Remaining *int64
	// ResetsAt is the end of the usage month (counters and credits features).
	ResetsAt *time.Time
	// CreditsPerUnit of a credits feature (0 otherwise).
	CreditsPerUnit int
	// ClientReportable: the user's own session may report it.
	ClientReportable bool
}

// Entitlements lists every feature the tiers file declares, as the user has it: enabled or not, its
// limit, this month's usage and what remains. It reads the user's context, their counters of this
// month and gauges, and the balance when a credits feature is enabled: index reads in two round trips
// (the context, then the rest together), whatever the number of events stored. db.ErrNotFound for an unknown or deleted user.
func (s *Service) Entitlements(ctx context.Context, userID uuid.UUID) ([]Entitlement, error) {
	return s.entitlements(ctx, userID, false)
}

// EntitlementsForOperator is Entitlements for the operator console: a soft-deleted user's too.
func (s *Service) EntitlementsForOperator(ctx context.Context, userID uuid.UUID) ([]Entitlement, error) {
	return s.entitlements(ctx, userID, true)
}

func (s *Service) entitlements(ctx context.Context, userID uuid.UUID, deleted bool) ([]Entitlement, error) {
	var out []Entitlement
	err := db.Pipelined(s.db).WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		st, err := s.state(ctx, tx, userID, deleted)
		if err != nil {
			return err
		}
		for _, name := range s.tiers.FeatureNames() {
			out = append(out, st.entitlement(name, s.tiers.FeatureKind(name)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("entitlements: %w", err)
	}
	return out, nil
}

// Decision is Check's answer.
type Decision struct {
	Allowed bool
	// Remaining after the quantity would be used (nil for a switch); for a credits feature, in units.
	Remaining *int64
	// Reason of a refusal: limit_exceeded, insufficient_credits or disabled ("" when allowed).
	Reason  string
	Feature Entitlement
}

// ClientMayReport reports whether a user on tier may report feature with their own session (the tiers
// file's client_reportable); otherwise only a worker key may.
func (s *Service) ClientMayReport(tier, feature string) bool {
	t, _ := s.tiers.ByName(tier)
	f, ok := t.Feature(feature)
	return !ok || f.ClientReportable // a disabled feature is answered "disabled", not refused
}

// Check answers whether the user may use quantity units of feature now, recording nothing. It is a
// snapshot: a concurrent event may take the last units after it answers, which Record then refuses.
func (s *Service) Check(ctx context.Context, userID uuid.UUID, feature string, quantity int64) (Decision, error) {
	kind := s.tiers.FeatureKind(feature)
	switch {
	case kind == "":
		return Decision{}, invalid("feature", "no tier declares %q", feature)
	case quantity < 0 || quantity > MaxQuantity:
		return Decision{}, invalid("quantity", "want 0..%d", MaxQuantity)
	}
	var e Entitlement
	err := db.Pipelined(s.db).WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		st, err := s.state(ctx, tx, userID, false)
		e = st.entitlement(feature, kind)
		return err
	})
	if err != nil {
		return Decision{}, fmt.Errorf("check usage: %w", err)
	}
	return decide(e, quantity), nil
}

// decide applies quantity to an entitlement.
func decide(e Entitlement, quantity int64) Decision {
	d := Decision{Feature: e, Allowed: true}
	switch {
	case !e.Enabled:
		d.Allowed, d.Reason = false, StatusDisabled
	case e.Kind == billing.FeatureSwitch:
	case e.Kind == billing.FeatureCredits:
		d.Remaining = ptr(*e.Remaining - quantity)
		if *d.Remaining < 0 {
			d.Allowed, d.Reason, d.Remaining = false, StatusInsufficientCredits, ptr(*e.Remaining)
		}
	default:
		left := *e.Limit - e.Used - quantity
		d.Remaining = ptr(max(left, 0))
		if left < 0 && (e.Kind == billing.FeatureGauge || e.Overage == billing.OverageBlock) {
			d.Allowed, d.Reason, d.Remaining = false, StatusLimitExceeded, ptr(*e.Remaining)
		}
	}
	return d
}

// userState is what Entitlements and Check read about one user.
type userState struct {
	tier       billing.Tier
	start, end time.Time
	used       map[string]int64
	balance    int
}

const stateSQL = `SELECT coalesce(array_agg(feature), '{}'), coalesce(array_agg(used), '{}') FROM (
  SELECT feature, used FROM usage_counters WHERE user_id = $1 AND period_start = $2
  UNION ALL SELECT feature, value FROM usage_gauges WHERE user_id = $1) x`

// state reads the user's tier and month, their counters of the month and gauges, and their balance; a
// deleted user is not found unless deleted is set.
func (s *Service) state(ctx context.Context, tx *gorm.DB, userID uuid.UUID, deleted bool) (userState, error) {
	now := s.now()
	subs, err := billing.UsageContextsTx(ctx, tx, []uuid.UUID{userID}, now)
	if err != nil {
		return userState{}, err
	}
	sub, ok := subs[userID]
	if !ok || (sub.Deleted && !deleted) {
		return userState{}, fmt.Errorf("user %s: %w", userID, db.ErrNotFound)
	}
	st := userState{used: map[string]int64{}}
	st.tier, _ = s.tiers.ByName(sub.Tier)
	st.start, st.end = billing.UsageMonth(sub.Anchor, now)
	var features []string
	var used []int64
	rows := []*db.Row{{SQL: stateSQL, Args: []any{userID, st.start}, Dest: []any{&features, &used}}}
	for _, f := range st.tier.Features {
		if f.Kind == billing.FeatureCredits {
			rows = append(rows, s.ledger.BalanceRow(userID, &st.balance)) // in the same round trip
			break
		}
	}
	if err := db.QueryRows(ctx, tx, rows...); err != nil {
		return userState{}, db.Translate(err)
	}
	for i, f := range features {
		st.used[f] = used[i]
	}
	return st, nil
}

// entitlement is one feature of the state.
func (st userState) entitlement(name, kind string) Entitlement {
	e := Entitlement{Feature: name, Kind: kind}
	f, ok := st.tier.Feature(name)
	if !ok {
		return e
	}
	e.Enabled, e.ClientReportable, e.Used = true, f.ClientReportable, st.used[name]
	switch f.Kind {
	case billing.FeatureSwitch:
	case billing.FeatureCredits:
		e.CreditsPerUnit = f.CreditsPerUnit
		e.Remaining = ptr(int64(max(st.balance, 0) / f.CreditsPerUnit))
		e.ResetsAt = &st.end
	default:
		e.Limit, e.Remaining = ptr(f.Limit), ptr(max(f.Limit-e.Used, 0))
		if f.Kind == billing.FeatureCounter {
			e.Overage, e.ResetsAt = f.Overage, &st.end
		}
	}
	return e
}
