package credits

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// deductSQL inserts the deduct only if the balance covers it, in one round trip. It must run after
// lockUser, as its own statement: its snapshot is then taken after every earlier holder of the lock has
// committed, so the SUM includes their deducts. (A SUM inside the locking statement would use the
// snapshot from before the lock wait and miss them.) expires_at is stamped from the database clock, like
// created_at, so the window is exact whatever the application servers' clocks say.
const deductSQL = `INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, expires_at)
SELECT $1::uuid, $2::integer, 'deduct', $3, $4::text, now() + make_interval(secs => $5::float8)
 WHERE (SELECT COALESCE(SUM(delta), 0) FROM credit_transactions WHERE user_id = $1) >= $6` + onConflict

// refundSQL copies the user's deduct for a job as a positive refund. A reconciler refund for the user's
// job already returned the credits, so it blocks a second refund.
const refundSQL = `INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason)
SELECT d.user_id, -d.delta, 'refund', d.job_id, $1::text
  FROM credit_transactions d
 WHERE d.job_id = $2 AND d.kind = 'deduct' AND d.user_id = $3
   AND NOT EXISTS (SELECT 1 FROM credit_transactions r
                    WHERE r.user_id = d.user_id AND r.job_id = d.job_id AND r.kind = 'reconciler_refund')` + onConflict

// Grant adds amount credits for jobID. A repeated jobID returns the original grant with created=false.
func (s *Service) Grant(ctx context.Context, userID uuid.UUID, amount int, jobID, reason string) (Movement, bool, error) {
	if err := validate(amount, jobID, reason); err != nil {
		return Movement{}, false, wrap("grant credits", err)
	}
	// No user lock: a grant cannot overdraw, and the unique constraint alone makes it idempotent.
	m, created, err := insertOnce(s.db.WithContext(ctx), userID, amount, KindGrant, jobID, reason)
	if err != nil {
		return Movement{}, false, wrap("grant credits", err)
	}
	return m, created, nil
}

// GrantLater is Grant for a caller that needs no result: the grant is written, or it is a no-op if jobID
// was granted before. In a db.Pipelined transaction it rides with the next statement or the COMMIT
// (db.ExecLater), so a failure (the user is gone) fails the transaction there.
func (s *Service) GrantLater(ctx context.Context, userID uuid.UUID, amount int, jobID, reason string) error {
	if err := validate(amount, jobID, reason); err != nil {
		return wrap("grant credits", err)
	}
	if err := db.ExecLater(ctx, s.db, `INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason)
		VALUES ($1, $2, 'grant', $3, $4) ON CONFLICT ON CONSTRAINT uq_credit_transactions_user_job_kind DO NOTHING`,
		userID, amount, jobID, reason); err != nil {
		return wrap("grant credits", translate(s.db, err))
	}
	return nil
}

// Granted sums the user's grants whose job id starts with jobIDPrefix (a caller's family of keys, such as
// every grant of one subscription month). Bound to a caller's transaction (WithTx) it reads that
// transaction's view; the caller serialises the read with its following Grant (billing holds the
// subscription row's lock).
func (s *Service) Granted(ctx context.Context, userID uuid.UUID, jobIDPrefix string) (int, error) {
	if err := validJobID(jobIDPrefix); err != nil {
		return 0, wrap("granted credits", err)
	}
	var n int
	// starts_with, not LIKE: job ids carry "_" (Paddle's sub_...), a LIKE wildcard.
	err := s.db.WithContext(ctx).Raw(`SELECT COALESCE(SUM(delta), 0) FROM credit_transactions
		WHERE user_id = ? AND kind = 'grant' AND starts_with(job_id, ?)`, userID, jobIDPrefix).Scan(&n).Error
	if err != nil {
		return 0, wrap("granted credits", translate(s.db, err))
	}
	return n, nil
}

// deductTx inserts a deduct for jobID under the user lock, orphaned after expiresIn, or fails with
// ErrInsufficient and writes nothing. A repeated jobID returns the user's original deduct (with its
// original deadline) and created=false, even if the balance is now too low; with a different amount it is
// ErrJobConflict.
func deductTx(tx *gorm.DB, userID uuid.UUID, amount int, jobID, reason string, expiresIn time.Duration) (Movement, bool, error) {
	if err := lockUser(tx, userID); err != nil {
		return Movement{}, false, err
	}
	m, ok, err := scanOne(tx, deductSQL, userID, -amount, jobID, reason, expiresIn.Seconds(), amount)
	if err != nil || ok {
		return m, ok, err
	}
	// Nothing inserted: either the job already has a deduct (a retry) or the balance is short.
	existing, found, err := find(tx, userID, jobID, KindDeduct)
	switch {
	case err != nil:
		return Movement{}, false, err
	case !found:
		return Movement{}, false, ErrInsufficient
	case existing.Delta != -amount:
		return Movement{}, false, ErrJobConflict
	}
	// A retry of a job whose credits came back (a failure, or the reconciler at its deadline) must not
	// answer "already paid": the job is over, and a client that runs it again would run it for free.
	if refunded, err := hasRefund(tx, userID, jobID); err != nil || refunded {
		if err == nil {
			err = ErrJobFinished
		}
		return Movement{}, false, err
	}
	return existing, false, nil
}

// hasRefund reports whether the user's job has had its credits returned, by a failure or the reconciler.
func hasRefund(tx *gorm.DB, userID uuid.UUID, jobID string) (bool, error) {
	var n int64
	err := db.QueryRow(tx.Statement.Context, tx, `SELECT count(*) FROM credit_transactions
		WHERE user_id = $1 AND job_id = $2 AND kind IN ('refund', 'reconciler_refund')`, []any{userID, jobID}, &n)
	if err != nil {
		return false, translate(tx, err)
	}
	return n > 0, nil
}
