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

// dueOfSQL is which buckets of the users are due (a spend writing off its own user's).
const dueOfSQL = `SELECT coalesce(array_agg(id::text), '{}') FROM credit_buckets
 WHERE user_id = ANY($1::uuid[]) AND remaining > 0 AND expires_at <= $2`

// stillDueSQL re-reads, under the locks, which of the batch's buckets are still due (a spend may have
// written some off). Only the batch's own: all of the locked users' due buckets would make a batch's size
// the users' business (the ledger benchmark's users held ten due buckets each, and its batches of 1,000
// wrote off up to 10,000, holding a thousand users' locks for two seconds); the rest are the next
// batches'.
const stillDueSQL = `SELECT coalesce(array_agg(id::text), '{}') FROM credit_buckets
 WHERE id = ANY($1::uuid[]) AND user_id = ANY($2::uuid[]) AND remaining > 0 AND expires_at <= $3`

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
		var users, batch []string
		for _, r := range rows {
			batch = append(batch, r.ID)
			if !seen[r.UserID] {
				seen[r.UserID] = true
				users = append(users, r.UserID)
			}
		}
		var locked, ids []string
		if err := db.QueryRow(ctx, tx, lockFreeSQL, []any{users}, &locked); err != nil {
			return translate(tx, err)
		}
		if err := db.QueryRow(ctx, tx, stillDueSQL, []any{batch, locked, now}, &ids); err != nil {
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

// endingSQL lists the user's allowance buckets of source that end at the boundary and still hold credits.
const endingSQL = `SELECT coalesce(array_agg(id::text), '{}') FROM credit_buckets
 WHERE user_id = $1 AND category = 'allowance' AND source = $2 AND expires_at = $3 AND remaining > 0`

// leftAtEndSQL is what the user's allowance buckets of source ending at the boundary held at their end:
// their expire movements written at or after it, whoever wrote them (the expiry job, a spend, CarryOver
// itself, which stamps its write-off no earlier than the boundary). A write-off before the end is an
// allowance that ended early (a full refund, a pause, a drop to free: ExpireSource): it held nothing at the
// month's end, so nothing of it carries into a period paid later.
const leftAtEndSQL = `SELECT coalesce(sum(-t.delta), 0) FROM credit_buckets b
  JOIN credit_transactions t ON t.user_id = b.user_id AND t.kind = 'expire' AND t.job_id = 'expire:' || b.id
 WHERE b.user_id = $1 AND b.category = 'allowance' AND b.source = $2 AND b.expires_at = $3 AND t.created_at >= b.expires_at`

// Carry is the rollover of one month boundary of a subscription's allowance: the buckets of Source that
// expire at Boundary (the month that ends there) carry at most Max of what they held into a new allowance
// bucket under Key that expires at ExpiresAt (the end of the month that starts at Boundary), so carried
// credits roll on the same way. Max 0 carries nothing.
type Carry struct {
	UserID    uuid.UUID
	Source    string
	Boundary  time.Time
	Max       int
	Key       string
	ExpiresAt *time.Time
}

// CarryOver ends the month at c.Boundary for the allowance of c.Source and carries what is allowed: it
// writes off what those buckets still hold (at once, whatever the clock says: the month is over once the
// next one is granted), then grants min(Max, what they held at their end) as a rollover movement. The
// amount is the same whether the expiry job, a spend or this call wrote them off, since nothing can be
// spent from a bucket past its expiry. A repeated Key carries nothing more. It returns what it carried.
func (s *Service) CarryOver(ctx context.Context, c Carry) (int, error) {
	if err := validJobID(c.Key); err != nil {
		return 0, wrap("carry over credits", err)
	}
	boundary := c.Boundary.UTC().Truncate(time.Microsecond)
	carried := 0
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		st, err := lockBalance(tx, c.UserID)
		if err != nil || !st.exists {
			return err
		}
		// The month ends at the boundary even when the next month's grant comes a moment early (a renewal
		// delivered by a provider whose clock runs a little ahead): the write-off is the month's end.
		at := s.now()
		if at.Before(boundary) {
			at = boundary
		}
		var ids []string
		if err := db.QueryRow(tx.Statement.Context, tx, endingSQL, []any{c.UserID, c.Source, boundary}, &ids); err != nil {
			return translate(tx, err)
		}
		if _, _, err := expireBuckets(tx, []uuid.UUID{c.UserID}, parseUUIDs(ids), "allowance month ended", at); err != nil {
			return err
		}
		if c.Max <= 0 {
			return nil
		}
		var left int
		if err := db.QueryRow(tx.Statement.Context, tx, leftAtEndSQL, []any{c.UserID, c.Source, boundary}, &left); err != nil {
			return translate(tx, err)
		}
		if carried = min(left, c.Max); carried <= 0 {
			carried = 0
			return nil
		}
		g := GrantSpec{UserID: c.UserID, Amount: carried, Key: c.Key, Reason: "rollover", Category: CategoryAllowance,
			Priority: DefaultPriority, Source: c.Source, ExpiresAt: c.ExpiresAt}
		if err := s.validGrant(&g); err != nil {
			return err
		}
		m, created, err := s.grantTx(tx, g, KindRollover)
		if err == nil && !created {
			carried = m.Delta // carried before, by the same key
		}
		return err
	})
	if err != nil {
		return 0, wrap("carry over credits", err)
	}
	return carried, nil
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

// SourceUsers lists the users who hold buckets of category from source (a pack's transaction belongs to
// one user; the list form lets the caller see anything else).
func (s *Service) SourceUsers(ctx context.Context, category, source string) ([]uuid.UUID, error) {
	var ids []string
	err := db.QueryRow(ctx, s.db.WithContext(ctx), `SELECT coalesce(array_agg(DISTINCT user_id::text), '{}') FROM credit_buckets
		WHERE source = $1 AND source <> '' AND category = $2`, []any{source, category}, &ids)
	if err != nil {
		return nil, wrap("bucket owners", translate(s.db, err))
	}
	return parseUUIDs(ids), nil
}
