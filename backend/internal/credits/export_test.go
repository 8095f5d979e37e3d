package credits

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// The ledger's primitives as single calls, for tests only. The service's callers use Grant, Charge and the
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
		now := s.now()
		deadline := now.Add(s.cfg.DefaultExpiresIn)
		m, _, created, err = s.take(tx, draft{userID: userID, amount: amount, kind: KindDeduct, jobID: jobID, reason: reason}, &deadline, now)
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
		m, created, err = s.refundTx(tx, userID, jobID, reason)
		return err
	})
	if err != nil {
		return Movement{}, false, wrap("refund credits", err)
	}
	return m, created, nil
}

func (s *Service) refundTx(tx *gorm.DB, userID uuid.UUID, jobID, reason string) (Movement, bool, error) {
	if err := validText("reason", reason, MaxReasonLen); err != nil {
		return Movement{}, false, err
	}
	j, err := lockJob(tx, userID, jobID)
	if err != nil {
		return Movement{}, false, err
	}
	if j.refunded {
		return j.refund, false, nil
	}
	m, err := s.refund(tx, j.deduct, KindRefund, reason, s.now())
	return m, err == nil, err
}

// MarkCompleted records that jobID's task finished (a zero-delta marker the reconciler looks for).
func (s *Service) MarkCompleted(ctx context.Context, userID uuid.UUID, jobID string) (Movement, bool, error) {
	if err := validJobID(jobID); err != nil {
		return Movement{}, false, wrap("mark task completed", err)
	}
	m, created, err := scanOne(s.db.WithContext(ctx), markerSQL, userID, KindTaskCompleted, jobID, "", s.now())
	if err == nil && !created {
		m, err = mustFind(s.db.WithContext(ctx), userID, jobID, KindTaskCompleted)
	}
	if err != nil {
		return Movement{}, false, wrap("mark task completed", err)
	}
	return m, created, nil
}

// MarkFailed records that jobID's task failed and refunds its deduct, both once. It returns the refund;
// created is false when the job was already refunded.
func (s *Service) MarkFailed(ctx context.Context, userID uuid.UUID, jobID, reason string) (refund Movement, created bool, err error) {
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		if refund, created, err = s.refundTx(tx, userID, jobID, reason); err != nil {
			return err
		}
		_, err := insertMarker(tx, userID, KindTaskFailed, jobID, reason, s.now())
		return err
	})
	if err != nil {
		return Movement{}, false, wrap("mark task failed", err)
	}
	return refund, created, nil
}

// At is the service with its clock stopped at t: a movement written "then".
func (s *Service) At(t time.Time) *Service {
	c := *s
	c.cfg.Now = func() time.Time { return t }
	return &c
}

// CheckSQL is the query of the ledger check name, with @user for its scope.
func CheckSQL(name string) string {
	for _, c := range ledgerChecks {
		if c.name == name {
			return c.query
		}
	}
	return ""
}

// ExpireBatch is one batch of ExpireDue: its own transaction, what it wrote off and how many candidates
// it had.
func (s *Service) ExpireBatch(ctx context.Context, now time.Time) (n, candidates int, err error) {
	n, _, candidates, _, err = s.expireBatch(ctx, now)
	return n, candidates, err
}

// ExpiryBatch is the most buckets one batch of ExpireDue writes off.
const ExpiryBatch = expiryBatch
