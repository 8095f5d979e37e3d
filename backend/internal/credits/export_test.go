package credits

import (
	"context"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// The ledger's primitives as single calls, for tests only. The service's callers use Grant and the
// metered-job API (Spend, CompleteJob, FailJob, the reconciler), which compose the same statements with
// their audit rows; these let the tests pin each statement's semantics on its own.

// Deduct spends amount credits for jobID with the default orphan window, or fails with ErrInsufficient
// and writes nothing. A repeated jobID returns the original deduct with created=false, even if the
// balance is now too low; with a different amount it is ErrJobConflict.
func (s *Service) Deduct(ctx context.Context, userID uuid.UUID, amount int, jobID, reason string) (Movement, bool, error) {
	if err := validate(amount, jobID, reason); err != nil {
		return Movement{}, false, wrap("deduct credits", err)
	}
	var m Movement
	var created bool
	err := s.inTx(ctx, func(tx *gorm.DB) (err error) {
		m, created, err = deductTx(tx, userID, amount, jobID, reason, s.cfg.DefaultExpiresIn)
		return err
	})
	if err != nil {
		return Movement{}, false, wrap("deduct credits", err)
	}
	return m, created, nil
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
	m, ok, err := scanOne(tx, refundSQL, reason, jobID, userID)
	if err != nil || ok {
		return m, ok, err
	}
	return whyNoRefund(tx, userID, jobID)
}

// whyNoRefund explains an insert that wrote nothing, in one query over the user's rows of the job: an
// earlier refund of either kind (returned, created=false), or no deduct at all (ErrNoDeduct). Another
// user's job of the same id is a different job and is never read.
func whyNoRefund(tx *gorm.DB, userID uuid.UUID, jobID string) (Movement, bool, error) {
	var rows []Movement
	err := tx.Raw(`SELECT `+columns+` FROM credit_transactions WHERE user_id = ? AND job_id = ? AND kind IN (?, ?)`,
		userID, jobID, KindRefund, KindReconcilerRefund).Scan(&rows).Error
	if err != nil {
		return Movement{}, false, translate(tx, err)
	}
	if len(rows) == 0 {
		return Movement{}, false, ErrNoDeduct
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
