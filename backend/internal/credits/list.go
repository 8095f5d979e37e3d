package credits

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// List returns the user's movements newest first with keyset pagination on (created_at, id); cursor is
// opaque, "" for the first page; next is "" on the last page. limit is clamped to 1..100 (0 → 50).
func (s *Service) List(ctx context.Context, userID uuid.UUID, limit int, cursor string) (items []Movement, next string, err error) {
	q := s.db.WithContext(ctx).Table("credit_transactions").Select(columns).Where("user_id = ?", userID)
	items, next, err = db.Keyset(q, limit, cursor, func(m Movement) (time.Time, uuid.UUID) { return m.CreatedAt, m.ID })
	if err != nil {
		return nil, "", wrap("list credit movements", err)
	}
	return items, next, nil
}

// History returns all of the user's movements oldest first (the GDPR export): a user's ledger is small
// enough to read whole, and an export must be complete.
func (s *Service) History(ctx context.Context, userID uuid.UUID) ([]Movement, error) {
	items := []Movement{}
	err := s.db.WithContext(ctx).Raw(`SELECT `+columns+` FROM credit_transactions WHERE user_id = ?
		ORDER BY created_at, id`, userID).Scan(&items).Error
	if err != nil {
		return nil, wrap("credit history", err)
	}
	return items, nil
}

// KindTotal is how many movements of one kind there were, and their summed delta.
type KindTotal struct {
	Kind  string
	Count int64
	Sum   int64
}

// Recent totals the ledger's movements of the last window by kind (the metrics gauges).
func (s *Service) Recent(ctx context.Context, window time.Duration) ([]KindTotal, error) {
	out := []KindTotal{}
	err := s.db.WithContext(ctx).Raw(`SELECT kind, count(*) AS count, coalesce(sum(delta), 0) AS sum
		FROM credit_transactions WHERE created_at > now() - make_interval(secs => ?) GROUP BY kind ORDER BY kind`,
		window.Seconds()).Scan(&out).Error
	if err != nil {
		return nil, wrap("recent ledger totals", err)
	}
	return out, nil
}

// Day is one UTC day of the ledger: credits granted, spent (deducted, charged, charged again), given
// back (refunds, the reconciler's included), expired unspent and rolled over, all as positive numbers.
// Expired counts every write-off, the part a rollover then carries into the next month included, so the
// day's breakage (credits gone for good) is Expired - RolledOver.
type Day struct {
	Day        time.Time
	Granted    int64
	Spent      int64
	Refunded   int64
	Expired    int64
	RolledOver int64
}

// PerDay totals the ledger since since per UTC day (the admin overview), on (kind, created_at).
func (s *Service) PerDay(ctx context.Context, since time.Time) ([]Day, error) {
	out := []Day{}
	err := s.db.WithContext(ctx).Raw(`SELECT date_trunc('day', created_at AT TIME ZONE 'UTC') AS day,
		coalesce(sum(delta) FILTER (WHERE kind = ?), 0) AS granted,
		coalesce(-sum(delta) FILTER (WHERE kind IN ?), 0) AS spent,
		coalesce(sum(delta) FILTER (WHERE kind IN ?), 0) AS refunded,
		coalesce(-sum(delta) FILTER (WHERE kind = ?), 0) AS expired,
		coalesce(sum(delta) FILTER (WHERE kind = ?), 0) AS rolled_over
		FROM credit_transactions WHERE kind IN ? AND created_at >= ? GROUP BY 1 ORDER BY 1`,
		KindGrant, spendKinds, refundKinds, KindExpire, KindRollover,
		append(append([]string{KindGrant, KindExpire, KindRollover}, spendKinds...), refundKinds...), since).Scan(&out).Error
	if err != nil {
		return nil, wrap("ledger per day", err)
	}
	return out, nil
}

// spendKinds are the movements that charge for work: a deduct, a final charge, and a recharge after an
// orphan refund.
var spendKinds = []string{KindDeduct, KindCharge, KindRecharge}

// refundKinds are the movements that give a deduct's credits back.
var refundKinds = []string{KindRefund, KindReconcilerRefund}

// Bucket is one bucket of a user's credits as callers see it.
type Bucket struct {
	ID        uuid.UUID
	Category  string
	Priority  int
	Amount    int
	Remaining int
	ExpiresAt *time.Time
	ExpiredAt *time.Time
	Source    string
	CreatedAt time.Time
}

// Expired reports whether the bucket's credits are gone for good (written off, or past their expiry).
func (b Bucket) Expired(now time.Time) bool {
	return b.ExpiredAt != nil || (b.ExpiresAt != nil && !b.ExpiresAt.After(now))
}

// Buckets returns the user's buckets in burn order (the first is spent first): those that still hold
// credits or debt, or with all, every bucket the user ever had (at most 1000; BucketHistory pages).
func (s *Service) Buckets(ctx context.Context, userID uuid.UUID, all bool) ([]Bucket, error) {
	out := []Bucket{}
	q := `SELECT b.id, b.category, b.priority, b.amount, b.remaining, b.expires_at, b.expired_at, b.source, b.created_at
		FROM credit_buckets b WHERE b.user_id = ?`
	if !all {
		q += ` AND b.remaining <> 0`
	}
	err := s.db.WithContext(ctx).Raw(q+` ORDER BY `+burnOrder+` LIMIT 1000`, userID).Scan(&out).Error
	if err != nil {
		return nil, wrap("credit buckets", err)
	}
	return out, nil
}

// BucketHistory pages through every bucket the user ever had, newest first, with keyset pagination on
// (created_at, id) like List: the spent and the written-off ones too (ExpiredAt says when a bucket was
// written off). The user's index bounds the read to their buckets.
func (s *Service) BucketHistory(ctx context.Context, userID uuid.UUID, limit int, cursor string) (items []Bucket, next string, err error) {
	q := s.db.WithContext(ctx).Table("credit_buckets").
		Select("id, category, priority, amount, remaining, expires_at, expired_at, source, created_at").Where("user_id = ?", userID)
	items, next, err = db.Keyset(q, limit, cursor, func(b Bucket) (time.Time, uuid.UUID) { return b.CreatedAt, b.ID })
	if err != nil {
		return nil, "", wrap("credit bucket history", err)
	}
	return items, next, nil
}
