package credits

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// ErrJobFinished means the job already has its outcome: completing a job that failed, failing a job that
// completed, or spending again for a job whose credits were returned.
var ErrJobFinished = errors.New("job already finished with another outcome")

// Audit actions of the job lifecycle, one row per state change and none for a repeat.
const (
	ActionSpent        = "credits.spent"
	ActionJobCompleted = "credits.job_completed"
	ActionJobFailed    = "credits.job_failed"
	ActionReconciled   = "credits.reconciled"
)

// auditResource is the audit resource_type of job lifecycle rows; resource_id is the job id.
const auditResource = "credit_job"

// auditJob writes the audit row of one state change of a's job.
func auditJob(ctx context.Context, tx *gorm.DB, a audit.Actor, action, jobID string, details map[string]any) error {
	return audit.Write(ctx, tx, a.Entry(action, auditResource, jobID, details))
}

// Spend is Deduct for one unit of work of a.UserID, with its audit row and the balance after it, all in
// one transaction. The reconciler refunds the deduct once expiresIn (0: the configured default) has passed
// with no outcome; ErrInvalidExpiry outside MinExpiresIn..MaxExpiresIn. A repeated jobID returns the
// original deduct with created=false and writes nothing.
func (s *Service) Spend(ctx context.Context, a audit.Actor, amount int, jobID, reason string, expiresIn time.Duration) (m Movement, bal int, created bool, err error) {
	if err := validate(amount, jobID, reason); err != nil {
		return Movement{}, 0, false, wrap("spend credits", err)
	}
	if expiresIn, err = s.expiresIn(expiresIn); err != nil {
		return Movement{}, 0, false, wrap("spend credits", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		var err error
		if m, created, err = deductTx(tx, a.UserID, amount, jobID, reason, expiresIn); err != nil {
			return err
		}
		// The reason is the client's free text: it stays on the ledger row, out of the audit trail.
		if created {
			if err := auditJob(ctx, tx, a, ActionSpent, jobID, map[string]any{"movement_id": m.ID, "amount": amount}); err != nil {
				return err
			}
		}
		// Still under the user lock, so this is exactly the balance the deduct left.
		bal, err = balance(tx, a.UserID)
		return err
	})
	if err != nil {
		return Movement{}, 0, false, wrap("spend credits", err)
	}
	return m, bal, created, nil
}

// Completion is what CompleteJob did.
type Completion struct {
	// Created is false when the job was already completed (nothing written).
	Created bool
	// Recharged is the amount charged again because the reconciler had refunded the job as orphaned
	// before its completion was reported (0 otherwise).
	Recharged int
}

// CompleteJob records that a.UserID's job finished, as reported by a (the API lets only a worker report).
// A job the reconciler already refunded as orphaned is charged again (a recharge movement): the work was
// delivered, so it is owed, and the recharge may take the balance below zero (spends are then refused
// until it is covered). ErrNoDeduct when the user has no deduct for jobID (another user's job of that id
// is a different job, so it looks the same); ErrJobFinished when the job failed.
func (s *Service) CompleteJob(ctx context.Context, a audit.Actor, jobID string) (c Completion, err error) {
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		j, err := lockJob(tx, a.UserID, jobID)
		switch {
		case err != nil:
			return err
		case j.completed:
			return nil
		case j.failed || (j.refunded && j.refund.Kind != KindReconcilerRefund):
			return ErrJobFinished
		}
		details := map[string]any{"deduct_id": j.deduct.ID}
		if j.refunded {
			// The reconciler gave the credits back at the deadline; the worker says the work was done.
			m, err := mustInsert(tx, a.UserID, j.deduct.Delta, KindRecharge, jobID, "completed after the orphan refund")
			if err != nil {
				return err
			}
			c.Recharged = -m.Delta
			details["recharge_id"], details["recharged"] = m.ID, c.Recharged
		}
		if _, c.Created, err = insertOnce(tx, a.UserID, 0, KindTaskCompleted, jobID, ""); err != nil || !c.Created {
			return err
		}
		return auditJob(ctx, tx, a, ActionJobCompleted, jobID, details)
	})
	if err != nil {
		return Completion{}, wrap("complete job", err)
	}
	return c, nil
}

// mustInsert appends a movement that the caller, holding the user lock, knows does not exist yet.
func mustInsert(tx *gorm.DB, userID uuid.UUID, delta int, kind, jobID, reason string) (Movement, error) {
	m, ok, err := scanOne(tx, insertSQL, userID, delta, kind, jobID, reason)
	if err != nil {
		return Movement{}, err
	}
	if !ok {
		return Movement{}, fmt.Errorf("%s of job %q conflicted though none was visible under the user lock", kind, jobID)
	}
	return m, nil
}

// FailJob records that a.UserID's job failed and returns its credits, both once. It returns the refund
// (the reconciler's, if that came first) and the balance after it; created is false on a repeat.
// ErrNoDeduct and ErrJobFinished as for CompleteJob, the latter when the job already completed.
func (s *Service) FailJob(ctx context.Context, a audit.Actor, jobID, reason string) (refund Movement, bal int, created bool, err error) {
	if err := validText("reason", reason, MaxReasonLen); err != nil {
		return Movement{}, 0, false, wrap("fail job", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		j, err := lockJob(tx, a.UserID, jobID)
		if err != nil {
			return err
		}
		if j.completed {
			return ErrJobFinished
		}
		refund = j.refund
		if !j.refunded {
			if refund, err = mustRefund(tx, a.UserID, jobID, reason); err != nil {
				return err
			}
		}
		if !j.failed {
			if _, created, err = insertOnce(tx, a.UserID, 0, KindTaskFailed, jobID, reason); err != nil {
				return err
			}
		}
		created = created || !j.refunded
		if created {
			details := map[string]any{"refund_id": refund.ID, "refund_kind": refund.Kind, "amount": refund.Delta}
			if err := auditJob(ctx, tx, a, ActionJobFailed, jobID, details); err != nil {
				return err
			}
		}
		bal, err = balance(tx, a.UserID)
		return err
	})
	if err != nil {
		return Movement{}, 0, false, wrap("fail job", err)
	}
	return refund, bal, created, nil
}

// job is what the ledger holds about one of a user's jobs.
type job struct {
	deduct, refund              Movement
	completed, failed, refunded bool
}

// lockJob takes the user lock, then reads the user's rows for jobID. The lock is the one Deduct, Refund,
// MarkFailed and the reconciler take, so the state read here cannot change before this transaction ends.
// Only the user's own rows are read: another user's job is indistinguishable from no job (ErrNoDeduct).
func lockJob(tx *gorm.DB, userID uuid.UUID, jobID string) (job, error) {
	if err := validJobID(jobID); err != nil {
		return job{}, err
	}
	if err := lockUser(tx, userID); err != nil {
		return job{}, err
	}
	var rows []Movement
	err := tx.Raw(`SELECT `+columns+` FROM credit_transactions WHERE job_id = ? AND user_id = ?`, jobID, userID).Scan(&rows).Error
	if err != nil {
		return job{}, translate(tx, err)
	}
	var j job
	found := false
	for _, m := range rows {
		switch m.Kind {
		case KindDeduct:
			j.deduct, found = m, true
		case KindTaskCompleted:
			j.completed = true
		case KindTaskFailed:
			j.failed = true
		case KindRefund, KindReconcilerRefund:
			j.refund, j.refunded = m, true

		}
	}
	if !found {
		return job{}, ErrNoDeduct
	}
	return j, nil
}

// mustRefund inserts the refund of a deduct that lockJob showed to be the user's and not yet refunded.
func mustRefund(tx *gorm.DB, userID uuid.UUID, jobID, reason string) (Movement, error) {
	m, ok, err := scanOne(tx, refundSQL, reason, jobID, userID)
	if err != nil {
		return Movement{}, err
	}
	if !ok {
		// Unreachable while every refund path takes the user lock: lockJob saw no refund under it.
		return Movement{}, fmt.Errorf("refund of job %q wrote nothing though none was visible", jobID)
	}
	return m, nil
}
