package credits

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
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

// Spend reserves amount credits for one job of a.UserID that runs elsewhere: a deduct with an orphan
// deadline, its audit row and the balance after it, all in one transaction. The worker that runs the job
// reports it completed (the credits stay spent) or failed (they come back); one never reported is refunded
// by the reconciler once expiresIn (0: the configured default) has passed (ErrInvalidExpiry outside
// MinExpiresIn..MaxExpiresIn). A repeated jobID returns the original deduct with created=false and writes
// nothing, unless its credits came back (ErrJobFinished); with another amount it is ErrJobConflict.
func (s *Service) Spend(ctx context.Context, a audit.Actor, amount int, jobID, reason string, expiresIn time.Duration) (m Movement, bal int, created bool, err error) {
	if err := validate(amount, jobID, reason); err != nil {
		return Movement{}, 0, false, wrap("spend credits", err)
	}
	if expiresIn, err = s.expiresIn(expiresIn); err != nil {
		return Movement{}, 0, false, wrap("spend credits", err)
	}
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		now := s.now()
		deadline := now.Add(expiresIn)
		var err error
		m, bal, created, err = s.take(tx, draft{userID: a.UserID, amount: amount, kind: KindDeduct, jobID: jobID, reason: reason}, &deadline, now)
		if err != nil {
			return err
		}
		if !created {
			// A retry of a job whose credits came back (a failure, or the reconciler at its deadline) must
			// not answer "already paid": the job is over, and a client that ran it again would run it free.
			if refunded, err := hasRefund(tx, a.UserID, jobID); err != nil || refunded {
				if err == nil {
					err = ErrJobFinished
				}
				return err
			}
			bal, err = available(tx, a.UserID, now)
			return err
		}
		// The reason is the client's free text: it stays on the ledger row, out of the audit trail.
		return auditJob(ctx, tx, a, ActionSpent, jobID, map[string]any{"movement_id": m.ID, "amount": amount})
	})
	if err != nil {
		return Movement{}, 0, false, wrap("spend credits", err)
	}
	return m, bal, created, nil
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
// delivered, so it is owed, and the recharge may take the balance below zero (what no bucket covers
// becomes debt, and spends are refused until it is covered). ErrNoDeduct when the user has no deduct for
// jobID (another user's job of that id is a different job, so it looks the same); ErrJobFinished when the
// job failed.
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
		now := s.now()
		details := map[string]any{"deduct_id": j.deduct.ID}
		if j.refunded {
			// The reconciler gave the credits back at the deadline; the worker says the work was done.
			c.Recharged = -j.deduct.Delta
			if _, err := debitAny(tx, a.UserID, c.Recharged, now); err != nil {
				return err
			}
			d := draft{userID: a.UserID, amount: c.Recharged, kind: KindRecharge, jobID: jobID, reason: "completed after the orphan refund"}
			m, ok, err := burn(tx, d, nil, true, now)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("recharge of job %q conflicted though none was visible under the lock", jobID)
			}
			details["recharge_id"], details["recharged"] = m.ID, c.Recharged
		}
		if c.Created, err = insertMarker(tx, a.UserID, KindTaskCompleted, jobID, "", now); err != nil || !c.Created {
			return err
		}
		return auditJob(ctx, tx, a, ActionJobCompleted, jobID, details)
	})
	if err != nil {
		return Completion{}, wrap("complete job", err)
	}
	return c, nil
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
		now := s.now()
		refund = j.refund
		if !j.refunded {
			if refund, err = s.refund(tx, j.deduct, KindRefund, reason, now); err != nil {
				return err
			}
		}
		if !j.failed {
			if created, err = insertMarker(tx, a.UserID, KindTaskFailed, jobID, reason, now); err != nil {
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
		bal, err = available(tx, a.UserID, now)
		return err
	})
	if err != nil {
		return Movement{}, 0, false, wrap("fail job", err)
	}
	return refund, bal, created, nil
}

// refund returns a deduct's credits to the buckets it took them from, under the lock the caller holds
// (lockJob showed no refund yet).
func (s *Service) refund(tx *gorm.DB, deduct Movement, kind, reason string, now time.Time) (Movement, error) {
	if _, err := credit(tx, deduct.UserID, -deduct.Delta, nil, now); err != nil {
		return Movement{}, err
	}
	m, ok, err := refundTo(tx, deduct, kind, reason, now)
	if err != nil {
		return Movement{}, err
	}
	if !ok {
		// Unreachable while every refund path takes the user lock: lockJob saw no refund under it.
		return Movement{}, fmt.Errorf("refund of job %q wrote nothing though none was visible", deduct.JobID)
	}
	return m, nil
}

// job is what the ledger holds about one of a user's jobs.
type job struct {
	deduct, refund              Movement
	completed, failed, refunded bool
}

// lockJob takes the user's lock, then reads the user's rows for jobID. Every movement of the user takes
// the same lock, so the state read here cannot change before this transaction ends. Only the user's own
// rows are read: another user's job is indistinguishable from no job (ErrNoDeduct).
func lockJob(tx *gorm.DB, userID uuid.UUID, jobID string) (job, error) {
	if err := validJobID(jobID); err != nil {
		return job{}, err
	}
	st, err := lockBalance(tx, userID)
	if err != nil {
		return job{}, err
	}
	if !st.exists {
		return job{}, unlessNoUser(tx, userID, ErrNoDeduct) // a user without a single movement has no job
	}
	var rows []Movement
	err = tx.Raw(`SELECT `+columns+` FROM credit_transactions WHERE job_id = ? AND user_id = ?`, jobID, userID).Scan(&rows).Error
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
