package credits

import (
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// burnOrder is the one definition of which credits a spend takes first: the lowest priority number, then
// the soonest expiry (never-expiring last), then promotional before allowance before purchased (what was
// given goes before what was paid for), then the oldest. Every statement that takes from buckets uses it.
const burnOrder = `b.priority, b.expires_at NULLS LAST,
  CASE b.category WHEN 'promotional' THEN 0 WHEN 'allowance' THEN 1 ELSE 2 END, b.created_at, b.id`

// fixBalance undoes the balance row's change when the movement's key already existed (mv is empty): the
// first statement applied the delta before the second could know.
const fixBalance = `fix AS (UPDATE credit_balances SET balance = balance - $delta
   WHERE user_id = $1 AND NOT EXISTS (SELECT 1 FROM mv))`

// burnSQL records a negative movement of $2 credits and takes them from the user's live buckets in burn
// order; with $8 (a recharge) what no bucket covers goes to the user's debt bucket. It returns the
// movement and how much the buckets (and debt) covered, which must be $2: the balance row's check
// promised it. Parameters: user, amount, kind, job id, reason, orphan deadline, now, allow debt.
var burnSQL = withDelta(`WITH mv AS (
  INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, expires_at, created_at)
  VALUES ($1, -$2::integer, $3, $4, $5::text, $6, $7) `+onConflict+`
), live AS (
  SELECT b.id, b.remaining,
         coalesce(sum(b.remaining) OVER (ORDER BY `+burnOrder+` ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
    FROM credit_buckets b
   WHERE b.user_id = $1 AND b.remaining > 0 AND b.category <> 'debt' AND (b.expires_at IS NULL OR b.expires_at > $7)
), take AS (
  SELECT live.id, least(live.remaining, $2 - live.before)::integer AS n FROM live, mv WHERE live.before < $2
), short AS (
  SELECT mv.id AS movement_id, ($2 - (SELECT coalesce(sum(n), 0) FROM take))::integer AS n FROM mv WHERE $8::boolean
), debt AS (
  INSERT INTO credit_buckets AS d (user_id, category, amount, remaining, created_at)
  SELECT $1, 'debt', 0, -short.n, $7 FROM short WHERE short.n > 0
  ON CONFLICT (user_id) WHERE category = 'debt' DO UPDATE SET remaining = d.remaining + EXCLUDED.remaining
  RETURNING d.id
), burn AS (
  UPDATE credit_buckets b SET remaining = b.remaining - take.n FROM take WHERE b.id = take.id
), alloc AS (
  INSERT INTO credit_allocations (movement_id, bucket_id, delta)
  SELECT mv.id, take.id, -take.n FROM mv, take
  UNION ALL SELECT short.movement_id, debt.id, -short.n FROM short, debt
), `+fixBalance+`
SELECT `+columns+`, (SELECT coalesce(sum(n), 0) FROM take)
     + (SELECT coalesce(sum(n), 0) FROM short WHERE n > 0) FROM mv`, "-$2")

// grantSQL records a positive movement of $2 credits (a grant or a rollover) and the bucket it creates.
// Parameters: user, amount, kind, job id, reason, now, category, priority, expiry, source.
var grantSQL = withDelta(`WITH mv AS (
  INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at)
  VALUES ($1, $2::integer, $3, $4, $5::text, $6) `+onConflict+`
), bk AS (
  INSERT INTO credit_buckets (user_id, category, priority, amount, remaining, expires_at, source, grant_id, created_at)
  SELECT $1, $7, $8, $2, $2, $9, $10, mv.id, $6 FROM mv RETURNING id
), alloc AS (
  INSERT INTO credit_allocations (movement_id, bucket_id, delta) SELECT mv.id, bk.id, $2 FROM mv, bk
), `+fixBalance+`
SELECT `+columns+` FROM mv`, "$2")

// refundSQL records a refund of $3 credits for the deduct $2 and returns them to the buckets the deduct
// took them from. A bucket that has expired meanwhile does not take them back: they go to a new bucket of
// its category that expires when it did (so the job's expiry writes them off), never to one that lasts
// longer. A deduct from before buckets existed has no allocations: its credits come back as a promotional
// bucket that never expires. Parameters: user, deduct id, amount, kind, job id, reason, now.
var refundSQL = withDelta(`WITH mv AS (
  INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at)
  VALUES ($1, $3::integer, $4, $5, $6::text, $7) `+onConflict+`
), src AS (
  SELECT b.id, -a.delta AS n, b.category, b.priority, b.source, least(b.expires_at, b.expired_at) AS expires_at,
         (b.expired_at IS NULL AND (b.expires_at IS NULL OR b.expires_at > $7)) AS alive
    FROM credit_allocations a JOIN credit_buckets b ON b.id = a.bucket_id
   WHERE a.movement_id = $2 AND a.delta < 0
  UNION ALL
  SELECT NULL, $3::integer, 'promotional', 50, '', NULL, false
   WHERE NOT EXISTS (SELECT 1 FROM credit_allocations WHERE movement_id = $2)
), back AS (
  UPDATE credit_buckets b SET remaining = b.remaining + src.n FROM src, mv
   WHERE b.id = src.id AND src.alive RETURNING b.id, src.n
), reborn AS (
  INSERT INTO credit_buckets (user_id, category, priority, amount, remaining, expires_at, source, created_at)
  SELECT $1, src.category, src.priority, src.n, src.n, src.expires_at, src.source, $7 FROM src, mv WHERE NOT src.alive
  RETURNING id, amount AS n, expires_at
), alloc AS (
  INSERT INTO credit_allocations (movement_id, bucket_id, delta)
  SELECT mv.id, x.id, x.n FROM mv, (SELECT id, n FROM back UNION ALL SELECT id, n FROM reborn) x
), soon AS (
  UPDATE credit_balances SET next_expiry_at = LEAST(next_expiry_at, (SELECT min(expires_at) FROM reborn))
   WHERE user_id = $1 AND EXISTS (SELECT 1 FROM reborn WHERE expires_at IS NOT NULL)
), `+fixBalance+`
SELECT `+columns+`, (SELECT coalesce(sum(n), 0) FROM back) + (SELECT coalesce(sum(n), 0) FROM reborn) FROM mv`, "$3")

// expireSQL writes off the remainder of each bucket in $1 (users whose lock the caller holds), once per
// bucket (the key expire:<bucket id>), and recomputes each user's next_expiry_at from the buckets left.
// Parameters: bucket ids, reason, now. It returns how many buckets and credits it wrote off.
const expireSQL = `WITH due AS (
  SELECT id, user_id, remaining FROM credit_buckets WHERE id = ANY($1::uuid[]) AND remaining > 0
), mv AS (
  INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at)
  SELECT user_id, -remaining, 'expire', 'expire:' || id, $2::text, $3 FROM due
  ON CONFLICT ON CONSTRAINT uq_credit_transactions_user_job_kind DO NOTHING
  RETURNING id, user_id, delta, substr(job_id, 8)::uuid AS bucket_id
), alloc AS (
  INSERT INTO credit_allocations (movement_id, bucket_id, delta) SELECT id, bucket_id, delta FROM mv
), gone AS (
  UPDATE credit_buckets b SET remaining = 0, expired_at = $3 FROM mv WHERE b.id = mv.bucket_id
), bal AS (
  UPDATE credit_balances c SET balance = c.balance + s.total, updated_at = $3,
         next_expiry_at = (SELECT min(x.expires_at) FROM credit_buckets x
                            WHERE x.user_id = c.user_id AND x.remaining > 0 AND x.expires_at IS NOT NULL
                              AND x.id <> ALL($1::uuid[]))
    FROM (SELECT user_id, sum(delta) AS total FROM mv GROUP BY user_id) s WHERE c.user_id = s.user_id
)
SELECT count(*), coalesce(-sum(delta), 0) FROM mv`

// settleSQL pays the user's debt from their buckets in burn order (soonest-expiring first), before any of
// them is written off: credits a recharge still owes are the user's debt to pay, not breakage. One zero
// movement records it. Parameters: user, now.
const settleSQL = `WITH d AS (
  SELECT id, -remaining AS owed FROM credit_buckets WHERE user_id = $1 AND category = 'debt' AND remaining < 0
), live AS (
  SELECT b.id, b.remaining,
         coalesce(sum(b.remaining) OVER (ORDER BY ` + burnOrder + ` ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
    FROM credit_buckets b WHERE b.user_id = $1 AND b.remaining > 0 AND b.category <> 'debt'
), take AS (
  SELECT live.id, least(live.remaining, d.owed - live.before)::integer AS n FROM live, d WHERE live.before < d.owed
), mv AS (
  INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at)
  SELECT $1, 0, 'settle', 'settle:' || gen_random_uuid(), 'debt paid from credits', $2 WHERE EXISTS (SELECT 1 FROM take)
  RETURNING id
), burn AS (
  UPDATE credit_buckets b SET remaining = b.remaining - take.n FROM take WHERE b.id = take.id
), pay AS (
  UPDATE credit_buckets b SET remaining = b.remaining + (SELECT sum(n) FROM take) FROM d
   WHERE b.id = d.id AND EXISTS (SELECT 1 FROM take)
), alloc AS (
  INSERT INTO credit_allocations (movement_id, bucket_id, delta)
  SELECT mv.id, take.id, -take.n FROM mv, take
  UNION ALL SELECT mv.id, d.id, (SELECT sum(n) FROM take)::integer FROM mv, d
)
SELECT count(*) FROM mv`

// withDelta fills fixBalance's $delta with the statement's own signed amount.
func withDelta(q, delta string) string { return strings.ReplaceAll(q, "$delta", "("+delta+")") }

// draft is a movement about to be recorded.
type draft struct {
	userID uuid.UUID
	amount int // positive; the sign follows from the kind
	kind   string
	jobID  string
	reason string
}

// burn runs burnSQL. ok is false when the key existed (the balance row's change was undone).
func burn(tx *gorm.DB, d draft, deadline *time.Time, allowDebt bool, now time.Time) (Movement, bool, error) {
	var m Movement
	var covered int
	err := db.QueryRow(tx.Statement.Context, tx, burnSQL,
		[]any{d.userID, d.amount, d.kind, d.jobID, d.reason, deadline, now, allowDebt},
		&m.ID, &m.UserID, &m.Delta, &m.Kind, &m.JobID, &m.Reason, &m.CreatedAt, &m.ExpiresAt, &covered)
	if ok, err := scanned(tx, err); !ok || err != nil {
		return Movement{}, false, err
	}
	if covered != d.amount {
		return Movement{}, false, uncovered(d.userID, d.amount, covered)
	}
	return m, true, nil
}

// GrantSpec is a grant: the credits, their idempotency key and the bucket they go into.
type GrantSpec struct {
	UserID uuid.UUID
	Amount int
	// Key is the grant's idempotency key (the ledger's job_id): the same key again grants nothing.
	Key    string
	Reason string
	// Category is CategoryAllowance, CategoryPurchased or CategoryPromotional ("": promotional).
	Category string
	// Priority orders buckets in a spend, MinPriority (first) to MaxPriority; 0 means DefaultPriority.
	Priority int
	// ExpiresAt is when the unspent remainder is written off; nil: never.
	ExpiresAt *time.Time
	// Source names what the bucket belongs to: the subscription of an allowance (its rollover and its
	// expiry at a downgrade), the transaction of a pack (its refund).
	Source string
}

// grantBucket runs grantSQL for g (already validated and defaulted).
func grantBucket(tx *gorm.DB, g GrantSpec, kind string, now time.Time) (Movement, bool, error) {
	var m Movement
	err := db.QueryRow(tx.Statement.Context, tx, grantSQL,
		[]any{g.UserID, g.Amount, kind, g.Key, g.Reason, now, g.Category, g.Priority, g.ExpiresAt, g.Source},
		&m.ID, &m.UserID, &m.Delta, &m.Kind, &m.JobID, &m.Reason, &m.CreatedAt, &m.ExpiresAt)
	ok, err := scanned(tx, err)
	return m, ok, err
}

// refundTo runs refundSQL for the deduct.
func refundTo(tx *gorm.DB, deduct Movement, kind, reason string, now time.Time) (Movement, bool, error) {
	var m Movement
	var covered int
	amount := -deduct.Delta
	err := db.QueryRow(tx.Statement.Context, tx, refundSQL,
		[]any{deduct.UserID, deduct.ID, amount, kind, deduct.JobID, reason, now},
		&m.ID, &m.UserID, &m.Delta, &m.Kind, &m.JobID, &m.Reason, &m.CreatedAt, &m.ExpiresAt, &covered)
	if ok, err := scanned(tx, err); !ok || err != nil {
		return Movement{}, false, err
	}
	if covered != amount {
		return Movement{}, false, uncovered(deduct.UserID, amount, covered)
	}
	return m, true, nil
}

// debtorsSQL finds which of the users owe credits (the debt buckets' unique index).
const debtorsSQL = `SELECT coalesce(array_agg(user_id::text), '{}') FROM credit_buckets
 WHERE user_id = ANY($1::uuid[]) AND category = 'debt' AND remaining < 0`

// expireBuckets settles the debt of those of the users who owe any and then writes off the buckets ids;
// the caller holds the users' locks. It returns how many buckets and credits were written off.
func expireBuckets(tx *gorm.DB, users, ids []uuid.UUID, reason string, now time.Time) (n, credits int, err error) {
	if len(ids) == 0 {
		return 0, 0, nil
	}
	ctx := tx.Statement.Context
	var debtors []string
	if err := db.QueryRow(ctx, tx, debtorsSQL, []any{uuidStrings(users)}, &debtors); err != nil {
		return 0, 0, translate(tx, err)
	}
	for _, u := range debtors {
		var settled int
		if err := db.QueryRow(ctx, tx, settleSQL, []any{u, now}, &settled); err != nil {
			return 0, 0, translate(tx, err)
		}
	}
	if err := db.QueryRow(ctx, tx, expireSQL, []any{uuidStrings(ids), reason, now}, &n, &credits); err != nil {
		return 0, 0, translate(tx, err)
	}
	return n, credits, nil
}

// uuidStrings is ids as text, for a uuid[] parameter.
func uuidStrings(ids []uuid.UUID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}
