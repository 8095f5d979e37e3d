package credits

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// The ledger's checks: every piece of derived state recomputed from the movements and allocations it is
// derived from. Each query returns (subject, detail) rows, one per difference; `fabrica verify ledger`
// runs them.
var ledgerChecks = []struct{ name, doc, query string }{
	{"ledger.balance_is_sum_of_movements", "each user's balance row equals the sum of their movements",
		`SELECT coalesce(m.user_id, b.user_id)::text AS subject,
		        format('movements sum to %s, balance row says %s', coalesce(m.total, 0), coalesce(b.balance::text, 'nothing')) AS detail
		   FROM (SELECT user_id, sum(delta) AS total FROM credit_transactions WHERE ` + userScope + ` GROUP BY user_id) m
		   FULL JOIN (SELECT user_id, balance FROM credit_balances WHERE ` + userScope + `) b USING (user_id)
		  WHERE coalesce(m.total, 0) <> coalesce(b.balance, 0)`},
	{"ledger.balance_is_sum_of_buckets", "each user's balance equals what their buckets hold (less any debt)",
		`SELECT coalesce(b.user_id, k.user_id)::text AS subject,
		        format('buckets hold %s, balance row says %s', coalesce(k.total, 0), coalesce(b.balance, 0)) AS detail
		   FROM (SELECT user_id, balance FROM credit_balances WHERE ` + userScope + `) b
		   FULL JOIN (SELECT user_id, sum(remaining) AS total FROM credit_buckets WHERE ` + userScope + ` GROUP BY user_id) k
		        USING (user_id)
		  WHERE coalesce(k.total, 0) <> coalesce(b.balance, 0)`},
	{"ledger.bucket_is_sum_of_allocations", "each bucket's remaining equals the sum of its allocations",
		`SELECT b.id::text AS subject, format('allocations sum to %s, remaining says %s', coalesce(a.total, 0), b.remaining) AS detail
		   FROM credit_buckets b
		   LEFT JOIN (SELECT bucket_id, sum(delta) AS total FROM credit_allocations GROUP BY bucket_id) a ON a.bucket_id = b.id
		  WHERE ` + bucketScope + ` AND coalesce(a.total, 0) <> b.remaining`},
	{"ledger.movement_is_sum_of_allocations", "each movement's allocations sum to its delta (movements from before buckets excepted)",
		`SELECT t.id::text AS subject, format('%s %s of %s: allocations sum to %s', t.kind, t.job_id, t.delta, coalesce(a.total, 0)) AS detail
		   FROM credit_transactions t
		   LEFT JOIN (SELECT movement_id, sum(delta) AS total FROM credit_allocations WHERE movement_id IS NOT NULL
		               GROUP BY movement_id) a ON a.movement_id = t.id
		  WHERE t.allocated AND ` + txScope + ` AND coalesce(a.total, 0) <> t.delta`},
	{"ledger.bucket_amount_is_its_grant", "a bucket made by a grant holds at most what was granted, and was created with it",
		`SELECT b.id::text AS subject, format('bucket of %s, its grant %s is %s', b.amount, t.job_id, t.delta) AS detail
		   FROM credit_buckets b JOIN credit_transactions t ON t.id = b.grant_id
		  WHERE ` + bucketScope + ` AND (b.amount <> t.delta OR b.user_id <> t.user_id)`},
	// Each bucket's expire movement is looked up by (user_id, job_id), the unique key's prefix, and the kind
	// is counted, not searched: with kind = 'expire' as a condition, statistics from before a mass expiry
	// (the expiry job's million buckets, before autovacuum's ANALYZE) made Postgres scan every expire
	// movement by the (kind, created_at) index once per bucket, quadratic: over a minute for 20,000 buckets.
	{"ledger.expired_bucket_is_empty", "a bucket written off holds nothing and has exactly one expire movement",
		`SELECT b.id::text AS subject, format('expired at %s with %s left, %s expire movements', b.expired_at, b.remaining, b.n) AS detail
		   FROM (SELECT b.id, b.expired_at, b.remaining,
		                (SELECT count(*) FILTER (WHERE t.kind = 'expire') FROM credit_transactions t
		                  WHERE t.user_id = b.user_id AND t.job_id = 'expire:' || b.id) AS n
		           FROM credit_buckets b
		          WHERE ` + bucketScope + ` AND b.expired_at IS NOT NULL) b
		  WHERE b.remaining <> 0 OR b.n > 1`},
	{"ledger.next_expiry_is_not_late", "no bucket with credits left expires before its user's next_expiry_at",
		`SELECT c.user_id::text AS subject, format('next_expiry_at %s, but bucket %s expires at %s', coalesce(c.next_expiry_at::text, 'none'), b.id, b.expires_at) AS detail
		   FROM credit_balances c JOIN credit_buckets b ON b.user_id = c.user_id
		  WHERE ` + balanceScope + ` AND b.remaining > 0 AND b.expires_at IS NOT NULL
		    AND (c.next_expiry_at IS NULL OR c.next_expiry_at > b.expires_at)`},
	{"ledger.job_lifecycle", "each job's movements tell one story: a deduct, then at most one refund of its amount; a failure returned its credits; a completion after the orphan refund charged it again; no deduct left unsettled an hour past its deadline",
		`SELECT j.user_id::text || ' ' || j.job_id AS subject, j.problem AS detail FROM (
		   SELECT user_id, job_id, CASE
		     WHEN deducts = 0 THEN format('%s without a deduct', kinds)
		     WHEN refunds > 1 THEN format('refunded twice (%s)', kinds)
		     WHEN refunds = 1 AND refunded <> -deduct THEN format('refund of %s for a deduct of %s', refunded, deduct)
		     WHEN completed AND failed THEN 'both completed and failed'
		     WHEN failed AND refunds = 0 THEN format('failed, but its %s credits were not returned', -deduct)
		     WHEN completed AND refunds = 1 AND NOT orphaned THEN 'completed after its credits were returned for a failure'
		     WHEN completed AND orphaned AND recharges = 0 THEN format('completed after the orphan refund, but the %s credits were not charged again', -deduct)
		     WHEN recharges > 0 AND NOT (completed AND orphaned) THEN 'charged again without an orphan refund and a completion'
		     WHEN recharges > 0 AND recharged <> deduct THEN format('charged again %s for a deduct of %s', -recharged, -deduct)
		     WHEN NOT (completed OR failed) AND refunds = 0 AND deadline < coalesce(CAST(@now AS timestamptz), now()) - make_interval(secs => @grace)
		       THEN format('deduct of %s past its deadline %s with no completion, failure or refund: the reconciler is behind', -deduct, deadline)
		   END AS problem
		   FROM (SELECT user_id, job_id,
		                count(*) FILTER (WHERE kind = 'deduct') AS deducts,
		                min(delta) FILTER (WHERE kind = 'deduct') AS deduct,
		                min(expires_at) FILTER (WHERE kind = 'deduct') AS deadline,
		                count(*) FILTER (WHERE kind IN ('refund', 'reconciler_refund')) AS refunds,
		                coalesce(sum(delta) FILTER (WHERE kind IN ('refund', 'reconciler_refund')), 0) AS refunded,
		                bool_or(kind = 'reconciler_refund') AS orphaned,
		                bool_or(kind = 'task_completed') AS completed,
		                bool_or(kind = 'task_failed') AS failed,
		                count(*) FILTER (WHERE kind = 'recharge') AS recharges,
		                coalesce(sum(delta) FILTER (WHERE kind = 'recharge'), 0) AS recharged,
		                string_agg(kind, ', ' ORDER BY kind) AS kinds
		           FROM credit_transactions
		          WHERE kind IN ` + jobKinds + ` AND ` + userScope + `
		          GROUP BY user_id, job_id) k) j
		  WHERE j.problem IS NOT NULL`},
}

// jobKinds are the movements of a job's lifecycle: the deduct and everything that may follow it.
const jobKinds = `('deduct', 'refund', 'reconciler_refund', 'task_completed', 'task_failed', 'recharge')`

// OrphanGrace is how long past its deadline a deduct may wait for the reconciler (every minute, a batch
// a run) before verify reports it.
const OrphanGrace = time.Hour

// GrantView is the ledger's grants as other packages' checks read them (docs/architecture.md, the
// verify views): one row per grant movement, with its user, key (job_id), amount (delta) and time.
const GrantView = `SELECT id, user_id, job_id, delta, created_at FROM credit_transactions WHERE kind = 'grant'`

// The per-user scope of each query: @user is NULL for the whole ledger.
const (
	userScope    = `(CAST(@user AS uuid) IS NULL OR user_id = CAST(@user AS uuid))`
	bucketScope  = `(CAST(@user AS uuid) IS NULL OR b.user_id = CAST(@user AS uuid))`
	txScope      = `(CAST(@user AS uuid) IS NULL OR t.user_id = CAST(@user AS uuid))`
	balanceScope = `(CAST(@user AS uuid) IS NULL OR c.user_id = CAST(@user AS uuid))`
)

// Checks are the ledger's consistency checks, for `fabrica verify`.
func Checks() []verify.Check {
	out := make([]verify.Check, 0, len(ledgerChecks))
	for _, c := range ledgerChecks {
		out = append(out, verify.Check{Name: c.name, Area: "ledger", Doc: c.doc,
			Run: func(ctx context.Context, tx *gorm.DB, s verify.Scope) ([]verify.Violation, error) {
				return verify.Rows(ctx, tx, c.name, c.query, map[string]any{"user": s.User(), "now": s.At(), "grace": OrphanGrace.Seconds()})
			}})
	}
	return out
}
