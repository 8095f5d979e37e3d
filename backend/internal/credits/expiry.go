package credits

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Expiry batches: one transaction of ExpireDue writes off at most expiryBatch buckets (their users locked
// for those few milliseconds only), and a run stops after expiryMaxBatches; the schedule does the rest.
const (
	expiryBatch      = 1000
	expiryMaxBatches = 200
)

// ExpiryReport is what one ExpireDue run did.
type ExpiryReport struct {
	Buckets int // buckets written off
	Credits int // credits written off (the breakage)
	Skipped int // due buckets left for the next run: their user was busy (a spend held the lock)
}

// dueSQL is the next batch of buckets whose time has come, soonest first (ix_credit_buckets_due).
const dueSQL = `SELECT id::text, user_id::text FROM credit_buckets
 WHERE remaining > 0 AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2`

// lockFreeSQL locks those of the users no one else holds, in one order (so two runs cannot deadlock),
// skipping the rest: the job never waits behind a spend, and a spend waits at most one batch.
const lockFreeSQL = `SELECT coalesce(array_agg(user_id::text ORDER BY user_id), '{}') FROM (
  SELECT user_id FROM credit_balances WHERE user_id = ANY($1::uuid[]) ORDER BY user_id FOR NO KEY UPDATE SKIP LOCKED) l`

// dueOfSQL re-reads, under the locks, which buckets of the users are due (a spend may have emptied some).
const dueOfSQL = `SELECT coalesce(array_agg(id::text), '{}') FROM credit_buckets
 WHERE user_id = ANY($1::uuid[]) AND remaining > 0 AND expires_at <= $2`

// ExpireDue writes off the unspent remainder of every bucket whose expiry has passed by now, exactly once
// per bucket, in batches that each lock only their own users and skip a user another transaction holds.
// Safe beside itself and beside spends (which write off their own user's due buckets first).
func (s *Service) ExpireDue(ctx context.Context, now time.Time) (ExpiryReport, error) {
	var rep ExpiryReport
	for range expiryMaxBatches {
		if err := ctx.Err(); err != nil {
			return rep, nil
		}
		n, credits, candidates, skipped, err := s.expireBatch(ctx, now.UTC().Truncate(time.Microsecond))
		if err != nil {
			return rep, fmt.Errorf("expire credits: %w", err)
		}
		rep.Buckets += n
		rep.Credits += credits
		if candidates < expiryBatch || n == 0 {
			rep.Skipped = skipped
			break
		}
	}
	return rep, nil
}

func (s *Service) expireBatch(ctx context.Context, now time.Time) (n, credits, candidates, skipped int, err error) {
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var rows []struct{ ID, UserID string }
		if err := tx.Raw(dueSQL, now, expiryBatch).Scan(&rows).Error; err != nil {
			return translate(tx, err)
		}
		candidates = len(rows)
		if candidates == 0 {
			return nil
		}
		seen := map[string]bool{}
		var users []string
		for _, r := range rows {
			if !seen[r.UserID] {
				seen[r.UserID] = true
				users = append(users, r.UserID)
			}
		}
		var locked, ids []string
		if err := db.QueryRow(ctx, tx, lockFreeSQL, []any{users}, &locked); err != nil {
			return translate(tx, err)
		}
		if err := db.QueryRow(ctx, tx, dueOfSQL, []any{locked, now}, &ids); err != nil {
			return translate(tx, err)
		}
		skipped = candidates - len(ids)
		n, credits, err = expireBuckets(tx, parseUUIDs(locked), parseUUIDs(ids), "expired", now)
		return err
	})
	return n, credits, candidates, max(skipped, 0), err
}

// expireDueOf writes off the user's due buckets; the caller holds the user's lock.
func expireDueOf(tx *gorm.DB, userID uuid.UUID, now time.Time) error {
	var ids []string
	if err := db.QueryRow(tx.Statement.Context, tx, dueOfSQL, []any{[]string{userID.String()}, now}, &ids); err != nil {
		return translate(tx, err)
	}
	_, _, err := expireBuckets(tx, []uuid.UUID{userID}, parseUUIDs(ids), "expired", now)
	return err
}

// sourceBucketsSQL lists the user's unexpired buckets of a category and source that hold credits.
const sourceBucketsSQL = `SELECT coalesce(array_agg(id::text), '{}'), coalesce(sum(remaining), 0) FROM credit_buckets
 WHERE user_id = $1 AND category = $2 AND source = $3 AND remaining > 0 AND expired_at IS NULL`

// ExpireSource writes off, at once, what is left in the user's buckets of category from source: a
// subscription's allowance when the user drops to free or the period is refunded, a pack's credits when
// its payment is refunded. Purchased and promotional credits of other sources are untouched. It returns
// the credits written off; reason is stored on each expire movement.
func (s *Service) ExpireSource(ctx context.Context, userID uuid.UUID, category, source, reason string) (int, error) {
	if err := validText("reason", reason, MaxReasonLen); err != nil {
		return 0, wrap("expire credits", err)
	}
	var credits int
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		st, err := lockBalance(tx, userID)
		if err != nil || !st.exists {
			return err
		}
		var ids []string
		var left int
		if err := db.QueryRow(tx.Statement.Context, tx, sourceBucketsSQL, []any{userID, category, source}, &ids, &left); err != nil {
			return translate(tx, err)
		}
		_, credits, err = expireBuckets(tx, []uuid.UUID{userID}, parseUUIDs(ids), reason, s.now())
		return err
	})
	if err != nil {
		return 0, wrap("expire credits", err)
	}
	return credits, nil
}

// Rollover says what a subscription's unspent allowance does when the next month's is granted.
type Rollover struct {
	// All keeps every unspent credit (the allowance never expires); otherwise at most Max carry over
	// (Max 0: none, each month's allowance expires when the next one is granted).
	All bool
	Max int
}

// RollOver applies r to the allowance left from source (a subscription) before the next month's grant:
// with All nothing changes; otherwise every earlier allowance bucket of source expires and, if Max > 0,
// at most Max of what was left carries into a new allowance bucket under key (kind rollover), which rolls
// the same way next month. It returns what carried over and what expired.
func (s *Service) RollOver(ctx context.Context, userID uuid.UUID, source string, r Rollover, key string) (carried, expired int, err error) {
	if r.All {
		return 0, 0, nil
	}
	if err := validJobID(key); err != nil {
		return 0, 0, wrap("roll over credits", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		st, err := lockBalance(tx, userID)
		if err != nil || !st.exists {
			return err
		}
		now := s.now()
		var ids []string
		var left int
		if err := db.QueryRow(tx.Statement.Context, tx, sourceBucketsSQL, []any{userID, CategoryAllowance, source}, &ids, &left); err != nil {
			return translate(tx, err)
		}
		// Settle any debt first (expireBuckets does), so what carries over is what the user really has.
		if _, expired, err = expireBuckets(tx, []uuid.UUID{userID}, parseUUIDs(ids), "allowance of the month before", now); err != nil {
			return err
		}
		if carried = min(expired, r.Max); carried <= 0 {
			carried = 0
			return nil
		}
		g := GrantSpec{UserID: userID, Amount: carried, Key: key, Reason: "rollover", Category: CategoryAllowance,
			Priority: DefaultPriority, Source: source}
		_, _, err = s.grantTx(tx, g, KindRollover)
		return err
	})
	if err != nil {
		return 0, 0, wrap("roll over credits", err)
	}
	return carried, expired, nil
}

// parseUUIDs turns the database's uuid text back into ids.
func parseUUIDs(ss []string) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(ss))
	for _, s := range ss {
		if id, err := uuid.Parse(s); err == nil {
			out = append(out, id)
		}
	}
	return out
}
