package credits

import (
	"context"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// deductSQL inserts the deduct only if the balance covers it, in one round trip. It must run after
// lockUser, as its own statement: its snapshot is then taken after every earlier holder of the lock has
// committed, so the SUM includes their deducts. (A SUM inside the locking statement would use the
// snapshot from before the lock wait and miss them.)
const deductSQL = `INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason)
SELECT ?::uuid, ?::integer, 'deduct', ?, ?::text
 WHERE (SELECT COALESCE(SUM(delta), 0) FROM credit_transactions WHERE user_id = ?) >= ?` + onConflict

// refundSQL copies the user's deduct for a job as a positive refund. A reconciler refund for the job
// already returned the credits, so it blocks a second refund.
const refundSQL = `INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason)
SELECT d.user_id, -d.delta, 'refund', d.job_id, ?::text
  FROM credit_transactions d
 WHERE d.job_id = ? AND d.kind = 'deduct' AND d.user_id = ?
   AND NOT EXISTS (SELECT 1 FROM credit_transactions r WHERE r.job_id = d.job_id AND r.kind = 'reconciler_refund')` + onConflict

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

// Deduct spends amount credits for jobID, or fails with ErrInsufficient and writes nothing. A repeated
// jobID returns the original deduct with created=false, even if the balance is now too low; with a
// different amount it is ErrJobConflict.
func (s *Service) Deduct(ctx context.Context, userID uuid.UUID, amount int, jobID, reason string) (Movement, bool, error) {
	if err := validate(amount, jobID, reason); err != nil {
		return Movement{}, false, wrap("deduct credits", err)
	}
	var m Movement
	var created bool
	err := s.inTx(ctx, func(tx *gorm.DB) (err error) {
		m, created, err = deductTx(tx, userID, amount, jobID, reason)
		return err
	})
	if err != nil {
		return Movement{}, false, wrap("deduct credits", err)
	}
	return m, created, nil
}

func deductTx(tx *gorm.DB, userID uuid.UUID, amount int, jobID, reason string) (Movement, bool, error) {
	if err := lockUser(tx, userID); err != nil {
		return Movement{}, false, err
	}
	m, ok, err := scanOne(tx.Raw(deductSQL, userID, -amount, jobID, reason, userID, amount))
	if err != nil || ok {
		return m, ok, err
	}
	// Nothing inserted: either the job already has a deduct (a retry) or the balance is short.
	existing, found, err := find(tx, jobID, KindDeduct)
	switch {
	case err != nil:
		return Movement{}, false, err
	case !found:
		return Movement{}, false, ErrInsufficient
	case existing.UserID != userID || existing.Delta != -amount:
		return Movement{}, false, ErrJobConflict
	}
	return existing, false, nil
}

// Refund returns the credits of jobID's deduct once (delta = -deduct.delta); repeats return the original
// refund with created=false. ErrNoDeduct if the job has no deduct.
func (s *Service) Refund(ctx context.Context, userID uuid.UUID, jobID, reason string) (Movement, bool, error) {
	var m Movement
	var created bool
	err := s.inTx(ctx, func(tx *gorm.DB) (err error) {
		m, created, err = refundTx(tx, userID, jobID, reason)
		return err
	})
	if err != nil {
		return Movement{}, false, wrap("refund credits", err)
	}
	return m, created, nil
}

func refundTx(tx *gorm.DB, userID uuid.UUID, jobID, reason string) (Movement, bool, error) {
	if err := validJobID(jobID); err != nil {
		return Movement{}, false, err
	}
	if err := validText("reason", reason, MaxReasonLen); err != nil {
		return Movement{}, false, err
	}
	// The lock serialises this with Deduct, so a refund never races the deduct it copies.
	if err := lockUser(tx, userID); err != nil {
		return Movement{}, false, err
	}
	m, ok, err := scanOne(tx.Raw(refundSQL, reason, jobID, userID))
	if err != nil || ok {
		return m, ok, err
	}
	return whyNoRefund(tx, userID, jobID)
}

// whyNoRefund explains an insert that wrote nothing, in one query over the job's rows: an earlier refund
// (returned, created=false), another user's job (ErrJobConflict), or no deduct at all (ErrNoDeduct).
func whyNoRefund(tx *gorm.DB, userID uuid.UUID, jobID string) (Movement, bool, error) {
	var rows []Movement
	err := tx.Raw(`SELECT `+columns+` FROM credit_transactions WHERE job_id = ? AND kind IN (?, ?, ?)
		ORDER BY kind = 'deduct'`, jobID, KindRefund, KindReconcilerRefund, KindDeduct).Scan(&rows).Error
	if err != nil {
		return Movement{}, false, translate(tx, err)
	}
	if len(rows) == 0 {
		return Movement{}, false, ErrNoDeduct
	}
	// Refund rows sort first; any row of another user means the job id is not this user's.
	if rows[0].UserID != userID {
		return Movement{}, false, ErrJobConflict
	}
	return rows[0], false, nil
}

// MarkCompleted records that jobID's task finished (a zero-delta marker the reconciler looks for).
func (s *Service) MarkCompleted(ctx context.Context, userID uuid.UUID, jobID string) (Movement, bool, error) {
	if err := validJobID(jobID); err != nil {
		return Movement{}, false, wrap("mark task completed", err)
	}
	m, created, err := insertOnce(s.db.WithContext(ctx), userID, 0, KindTaskCompleted, jobID, "")
	if err != nil {
		return Movement{}, false, wrap("mark task completed", err)
	}
	return m, created, nil
}

// MarkFailed records that jobID's task failed and refunds its deduct, both once. It returns the refund;
// created is false when the job was already refunded.
func (s *Service) MarkFailed(ctx context.Context, userID uuid.UUID, jobID, reason string) (refund Movement, created bool, err error) {
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		// Refund first: it takes the user lock and fails with ErrNoDeduct before anything is written, so
		// even a bound call leaves no orphan marker behind.
		if refund, created, err = refundTx(tx, userID, jobID, reason); err != nil {
			return err
		}
		_, _, err := insertOnce(tx, userID, 0, KindTaskFailed, jobID, reason)
		return err
	})
	if err != nil {
		return Movement{}, false, wrap("mark task failed", err)
	}
	return refund, created, nil
}
