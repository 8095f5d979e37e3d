package usage

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Record records one event inside the caller's transaction tx: the claim, the counter, any credit
// charge and the caller's own rows commit or roll back together, and what it records is final (nothing
// refunds it later). A refusal (limit, credits, disabled, ...) is a Result, not an error, and writes
// nothing: the caller decides whether to go on or roll back, and its transaction stays usable.
// Notifications of thresholds the event crossed are delivered after the caller commits, by the
// usage-notifications task (or at once by DeliverNotifications).
func (s *Service) Record(ctx context.Context, tx *gorm.DB, e Event) (Result, error) {
	out, err := s.record(ctx, tx.WithContext(ctx), []Event{e}, "", false)
	if err != nil {
		return Result{}, err
	}
	return out[0], nil
}

// RecordEvents records up to MaxBatch events in one transaction of its own (the API's batches), each
// with its own result, and delivers the notifications they caused once it has committed.
func (s *Service) RecordEvents(ctx context.Context, events []Event) ([]Result, error) {
	if len(events) > MaxBatch {
		return nil, invalid("events", "at most %d a request", MaxBatch)
	}
	var out []Result
	err := db.Pipelined(s.db).WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		out, err = s.record(ctx, tx, events, "events", true)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.deliverAfter(ctx, out, events)
	return out, nil
}

// pending is one event on its way: validated, resolved against the user's tier and month.
type pending struct {
	i          int
	ev         Event
	f          billing.Feature
	start, end time.Time
	id         uuid.UUID
	ours       bool
	lowBalance int
}

// record is Record and RecordEvents: field names errors with prefix[i] when prefix is set. With commit
// (RecordEvents' own transaction), a write of counters only ends with the COMMIT in its round trip.
func (s *Service) record(ctx context.Context, tx *gorm.DB, events []Event, prefix string, commit bool) ([]Result, error) {
	now := s.now()
	if err := s.validate(events, prefix, now); err != nil {
		return nil, err
	}
	out := make([]Result, len(events))
	first := map[claimKey]int{} // a key twice in one call: the later copies get the first one's answer
	users := make([]uuid.UUID, 0, len(events))
	for i, e := range events {
		k := claimKey{e.UserID, e.Key}
		if _, seen := first[k]; !seen {
			first[k] = i
			users = append(users, e.UserID)
		}
	}
	subjects, err := billing.UsageContextsTx(ctx, tx, unique(users), now)
	if err != nil {
		return nil, err
	}
	var counters, charges []*pending
	for i, e := range events {
		if first[claimKey{e.UserID, e.Key}] != i {
			continue
		}
		p, status := s.resolve(subjects, i, e, now)
		out[i] = Result{Status: status, Feature: e.Feature, Quantity: e.Quantity}
		if p == nil {
			continue
		}
		out[i].PeriodStart, out[i].PeriodEnd = p.start, p.end
		if p.f.Kind == billing.FeatureCredits {
			charges = append(charges, p)
		} else {
			counters = append(counters, p)
		}
	}
	if err := s.write(ctx, tx, out, counters, charges, now, commit); err != nil {
		return nil, err
	}
	for i, e := range events {
		if j := first[claimKey{e.UserID, e.Key}]; j != i {
			out[i] = copyOf(out[j], e)
		}
	}
	return out, nil
}

type claimKey struct {
	user uuid.UUID
	key  string
}

// validate refuses what no tier could make right: an unknown feature, one that is not recorded as
// events (a gauge is set, a switch has nothing to count), a bad quantity or key, a time in the future.
func (s *Service) validate(events []Event, prefix string, now time.Time) error {
	for i, e := range events {
		field := func(name string) string {
			if prefix == "" {
				return name
			}
			return prefix + "[" + strconv.Itoa(i) + "]." + name
		}
		switch kind := s.tiers.FeatureKind(e.Feature); {
		case kind == "":
			return invalid(field("feature"), "no tier declares %q", e.Feature)
		case kind == billing.FeatureGauge:
			return invalid(field("feature"), "%q is a gauge: set it (PUT /usage/gauges/%s)", e.Feature, e.Feature)
		case kind == billing.FeatureSwitch:
			return invalid(field("feature"), "%q is a switch: there is nothing to record", e.Feature)
		case e.Quantity < 1 || e.Quantity > MaxQuantity:
			return invalid(field("quantity"), "want 1..%d", MaxQuantity)
		case e.UserID == uuid.Nil:
			return invalid(field("user_id"), "required")
		case e.OccurredAt.After(now.Add(FutureSkew)):
			return invalid(field("occurred_at"), "more than %s in the future", FutureSkew)
		}
		if err := validKey(field("idempotency_key"), e.Key); err != nil {
			return err
		}
	}
	return nil
}

// resolve decides what can be decided before writing: the user, the feature in their tier, the age.
// It returns the event to write, or nil and the refusal.
func (s *Service) resolve(subjects map[uuid.UUID]billing.UsageContext, i int, e Event, now time.Time) (*pending, string) {
	sub, ok := subjects[e.UserID]
	if !ok || sub.Deleted {
		return nil, StatusUnknownUser
	}
	at := e.OccurredAt.UTC().Truncate(time.Microsecond)
	if at.IsZero() {
		at = now
	}
	if at.Before(now.Add(-s.cfg.DedupWindow)) {
		return nil, StatusTooOld
	}
	tier, _ := s.tiers.ByName(sub.Tier) // a tier removed from the file has no features
	f, ok := tier.Feature(e.Feature)
	if !ok {
		return nil, StatusDisabled
	}
	if f.Kind == billing.FeatureCredits && e.Quantity*int64(f.CreditsPerUnit) > math.MaxInt32 {
		return nil, StatusInsufficientCredits // more than any balance can hold
	}
	start, end := billing.UsageMonth(sub.Anchor, at)
	e.OccurredAt = at
	return &pending{i: i, ev: e, f: f, start: start, end: end, id: newID(), lowBalance: tier.LowBalance}, StatusRecorded
}

// write runs the statements of statements.go for the events to write and fills their results. With
// commit and no credits feature, nothing is left to decide in Go after the counters: their statements
// and the COMMIT go in one round trip (notifications are rows they insert, delivered after the commit).
func (s *Service) write(ctx context.Context, tx *gorm.DB, out []Result, counters, charges []*pending, now time.Time, commit bool) error {
	all := slices.Concat(counters, charges)
	if len(all) == 0 {
		return nil
	}
	slices.SortFunc(all, func(a, b *pending) int {
		return cmp.Or(slices.Compare(a.ev.UserID[:], b.ev.UserID[:]), cmp.Compare(a.ev.Key, b.ev.Key))
	})
	slices.SortFunc(counters, func(a, b *pending) int {
		return cmp.Or(slices.Compare(a.ev.UserID[:], b.ev.UserID[:]), cmp.Compare(a.ev.Feature, b.ev.Feature),
			a.start.Compare(b.start), cmp.Compare(a.ev.Key, b.ev.Key))
	})
	claim := claimRow(all, now)
	var ours []pgtype.UUID
	claim.Dest = []any{&ours}
	rows := []*db.Row{claim}
	reads := make([]counterRead, len(counters))
	for i, p := range counters {
		rows = append(rows, reads[i].row(p, now))
	}
	var err error
	if commit && len(charges) == 0 {
		_, err = db.QueryRowsAndCommit(ctx, tx, rows...)
	} else {
		err = db.QueryRows(ctx, tx, rows...)
	}
	if err != nil {
		return fmt.Errorf("record usage: %w", db.Translate(err))
	}
	for i, p := range counters {
		out[p.i] = reads[i].result(out[p.i], p)
	}
	for _, p := range charges {
		p.ours = slices.Contains(ours, pgtype.UUID{Bytes: p.id, Valid: true})
		r, err := s.charge(ctx, tx, p, out[p.i], now)
		if err != nil {
			return fmt.Errorf("record usage: %w", err)
		}
		out[p.i] = r
	}
	return nil
}

// claimRow is claimSQL for the events, in lock order.
func claimRow(all []*pending, now time.Time) *db.Row {
	n := len(all)
	users, ids := make([]uuid.UUID, n), make([]uuid.UUID, n)
	keys, features, kinds := make([]string, n), make([]string, n), make([]string, n)
	quantities := make([]int64, n)
	months, times := make([]time.Time, n), make([]time.Time, n)
	for i, p := range all {
		users[i], keys[i], ids[i], features[i] = p.ev.UserID, p.ev.Key, p.id, p.ev.Feature
		kinds[i], quantities[i], months[i], times[i] = kindOf(p.f), p.ev.Quantity, p.start, p.ev.OccurredAt
	}
	return &db.Row{SQL: claimSQL, Args: []any{uuidArray(users), keys, uuidArray(ids), features, kinds, quantities, months, times, now}}
}

// kindOf is the claim's and event's kind for a feature.
func kindOf(f billing.Feature) string {
	if f.Kind == billing.FeatureGauge {
		return "gauge"
	}
	return "usage"
}

// counterRead holds what counterSQL returns for one event.
type counterRead struct {
	mine         bool
	after, cur   int64
	notified     []string
	origID       uuid.UUID
	origFeature  string
	origQuantity int64
}

func (r *counterRead) row(p *pending, now time.Time) *db.Row {
	var limit any
	if p.f.Kind != billing.FeatureCredits {
		limit = p.f.Limit
	}
	return &db.Row{SQL: counterSQL,
		Args: []any{p.ev.UserID, p.ev.Feature, p.start, p.end, p.ev.Quantity, limit, p.f.Blocks(), p.ev.Key, p.id, p.ev.OccurredAt, now},
		Dest: []any{&r.mine, &r.after, &r.cur, &r.notified, &r.origID, &r.origFeature, &r.origQuantity}}
}

// result turns the read into the event's result.
func (r *counterRead) result(res Result, p *pending) Result {
	switch {
	case !r.mine:
		res = duplicateOf(res, r.origID, r.origFeature, r.origQuantity)
		res.Used = r.cur
	case r.after < 0:
		res.Status, res.Used = StatusLimitExceeded, r.cur
	default:
		res.Status, res.EventID, res.Used, res.Notified = StatusRecorded, p.id, r.after, r.notified
	}
	if p.f.Kind != billing.FeatureCredits {
		res.Limit, res.Remaining = ptr(p.f.Limit), ptr(max(p.f.Limit-res.Used, 0))
	}
	return res
}

// duplicateOf is the answer to a copy of a recorded event: the original, or a key conflict when the key
// was recorded for something else.
func duplicateOf(res Result, id uuid.UUID, feature string, quantity int64) Result {
	if id == uuid.Nil {
		// The claim is gone again: its transaction was refused after the copy waited for it. Rare; the
		// caller retries and is decided afresh.
		res.Status = StatusKeyConflict
		return res
	}
	res.EventID = id
	if feature != res.Feature || quantity != res.Quantity {
		res.Status = StatusKeyConflict
		return res
	}
	res.Status = StatusDuplicate
	return res
}

// charge records a credits feature's event: the ledger's final charge, then its counter; or, when the
// balance does not cover it, the claim's deletion.
func (s *Service) charge(ctx context.Context, tx *gorm.DB, p *pending, res Result, now time.Time) (Result, error) {
	if !p.ours {
		var id uuid.UUID
		var feature string
		var quantity int64
		if err := db.QueryRow(ctx, tx, origSQL, []any{p.ev.UserID, p.ev.Key}, &id, &feature, &quantity); err != nil && !errors.Is(err, errNoRow) {
			return res, db.Translate(err)
		}
		return duplicateOf(res, id, feature, quantity), nil
	}
	cost := int(p.ev.Quantity) * p.f.CreditsPerUnit
	_, bal, created, err := s.ledger.WithTx(tx).Charge(ctx, p.ev.UserID, cost, ledgerKey(p.ev.Key), p.ev.Feature)
	switch {
	case errors.Is(err, credits.ErrInsufficient):
		res.Status = StatusInsufficientCredits
	case errors.Is(err, credits.ErrJobConflict) || (err == nil && !created):
		// The ledger has this key's charge but the claim was new: the claim outlived by its charge (an
		// event re-sent with another occurred_at after the window). The ledger's record stands.
		res.Status = StatusKeyConflict
	case err != nil:
		return res, err
	}
	if res.Status != StatusRecorded {
		if _, err := db.Exec(ctx, tx, unclaimSQL, p.ev.UserID, p.ev.Key, p.id); err != nil {
			return res, db.Translate(err)
		}
		if res.Status == StatusInsufficientCredits {
			b, err := s.ledger.WithTx(tx).Balance(ctx, p.ev.UserID)
			res.Balance = ptrInt(b)
			return res, err
		}
		return res, nil
	}
	var r counterRead
	if err := db.QueryRows(ctx, tx, r.row(p, now)); err != nil {
		return res, db.Translate(err)
	}
	res = r.result(res, p)
	res.Charged, res.Balance = cost, ptrInt(bal)
	if p.lowBalance > 0 && bal < p.lowBalance && bal+cost >= p.lowBalance {
		var t string
		if err := db.QueryRow(ctx, tx, lowBalanceSQL, []any{p.ev.UserID, p.start, bal, p.lowBalance, now}, &t); err == nil {
			res.Notified = append(res.Notified, t)
		} else if !errors.Is(err, errNoRow) {
			return res, db.Translate(err)
		}
	}
	return res, nil
}

// copyOf is the result of a key's second appearance in one call: the first one's answer, as a
// duplicate when the first was recorded.
func copyOf(first Result, e Event) Result {
	r := first
	r.Notified = nil
	if first.Status == StatusRecorded || first.Status == StatusDuplicate {
		r = duplicateOf(r, first.EventID, first.Feature, first.Quantity)
		if e.Feature != first.Feature || e.Quantity != first.Quantity {
			r.Status = StatusKeyConflict
		}
	}
	return r
}

func unique(ids []uuid.UUID) []uuid.UUID {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return slices.Compact(out)
}

func ptr(v int64) *int64 { return &v }

// errNoRow is a statement that returned no row (an answer: no claim, no notification inserted).
var errNoRow = sql.ErrNoRows

// uuidArray hands a uuid[] parameter to pgx in its own type (db's pgArgs does this for single values).
func uuidArray(ids []uuid.UUID) []pgtype.UUID {
	out := make([]pgtype.UUID, len(ids))
	for i, id := range ids {
		out[i] = pgtype.UUID{Bytes: id, Valid: true}
	}
	return out
}

func ptrInt(v int) *int { return &v }

// newID is a time-ordered UUIDv7: each event row lands at the right edge of its indexes.
func newID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.New()
	}
	return id
}
