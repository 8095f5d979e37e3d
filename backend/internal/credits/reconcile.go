package credits

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// DefaultReconcileLimit bounds one reconciler pass.
const DefaultReconcileLimit = 200

// ActorReconciler is the audit actor of reconciler refunds.
const ActorReconciler = "system:reconciler"

// lifecycleKinds are the rows that end a deduct's life: once a job has one, the reconciler leaves it alone.
const lifecycleKinds = `('task_completed', 'task_failed', 'refund', 'reconciler_refund')`

// orphansSQL walks the partial index ix_credit_transactions_deduct_expires_at, earliest deadline first;
// the NOT EXISTS probes use the (user_id, job_id, kind) unique index. A job is its user's: another user's
// lifecycle row on the same job id says nothing about this deduct.
const orphansSQL = `SELECT ` + columns + ` FROM credit_transactions d
 WHERE d.kind = 'deduct' AND d.expires_at <= ?
   AND NOT EXISTS (SELECT 1 FROM credit_transactions l
                    WHERE l.user_id = d.user_id AND l.job_id = d.job_id AND l.kind IN ` + lifecycleKinds + `)
 ORDER BY d.expires_at LIMIT ?`

// ReconcileResult counts one ReconcileOrphans pass. Scanned is at least Refunded + SkippedLifecycle; the
// difference is candidates whose user was deleted meanwhile, or that failed (see the returned error).
type ReconcileResult struct {
	// Scanned is how many orphan candidates the scan returned.
	Scanned int
	// Refunded is how many reconciler_refund rows this pass inserted.
	Refunded int
	// SkippedLifecycle is how many candidates had gained a lifecycle row (a completion, failure or refund,
	// or another reconciler's refund) by the time this pass held their user's lock.
	SkippedLifecycle int
}

// ReconcileOrphans refunds, earliest deadline first and at most limit (<= 0: DefaultReconcileLimit), the
// deducts whose expires_at (the spend's expires_in) is at or before now and that have no completion,
// failure or refund. Each refund is its own short transaction with a credits.reconciled audit row. It is
// safe to run from several instances at once, and against MarkFailed/FailJob: every job is refunded
// exactly once.
func (s *Service) ReconcileOrphans(ctx context.Context, now time.Time, limit int) (ReconcileResult, error) {
	const op = "reconcile orphan credits"
	if limit <= 0 {
		limit = DefaultReconcileLimit
	}
	var candidates []Movement
	q := s.db.WithContext(ctx)
	if err := q.Raw(orphansSQL, now, limit).Scan(&candidates).Error; err != nil {
		return ReconcileResult{}, wrap(op, translate(q, err))
	}
	res := ReconcileResult{Scanned: len(candidates)}
	var errs []error
	for _, d := range candidates {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		refunded, err := s.reconcileOne(ctx, d)
		switch {
		case errors.Is(err, db.ErrNotFound):
			// The user was deleted after the scan; the deduct went with it.
		case err != nil:
			// Keep going: one bad candidate must not hold back every younger orphan, pass after pass.
			errs = append(errs, fmt.Errorf("job %q: %w", d.JobID, err))
		case refunded:
			res.Refunded++
		default:
			res.SkippedLifecycle++
		}
	}
	if err := errors.Join(errs...); err != nil {
		return res, wrap(op, err)
	}
	return res, nil
}

// reconcileOne refunds the deduct d unless its job has an outcome or a refund by the time the user's lock
// is held; refunded reports whether this call wrote the refund.
func (s *Service) reconcileOne(ctx context.Context, d Movement) (refunded bool, err error) {
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		// The scan ran without locks, so its verdict may be stale. The lock queues us behind any FailJob,
		// CompleteJob or reconciler working on this user; the job's rows read under it are current.
		// Without the lock a failure and this refund could both commit: different kinds, no conflict.
		j, err := lockJob(tx, d.UserID, d.JobID)
		if errors.Is(err, ErrNoDeduct) || err == nil && (j.completed || j.failed || j.refunded) {
			return nil
		}
		if err != nil {
			return err
		}
		m, err := s.refund(tx, j.deduct, KindReconcilerRefund, "orphaned deduct", s.now())
		if err != nil {
			return err
		}
		refunded = true
		return audit.Write(ctx, tx, audit.Entry{Actor: ActorReconciler, Action: ActionReconciled, UserID: &d.UserID,
			ResourceType: auditResource, ResourceID: d.JobID,
			Details: map[string]any{"deduct_id": d.ID, "refund_id": m.ID, "amount": m.Delta}})
	})
	if err != nil {
		return false, err
	}
	return refunded, nil
}
