package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"gorm.io/gorm"
)

// QueueBroadcast keeps a campaign's sends from queueing ahead of transactional mail (QueueEmail).
const QueueBroadcast = "broadcast"

// BroadcastMaxWorkers bounds concurrent broadcast sends per process (with EMAIL_RATE_PER_SECOND, the
// per-process throttle, it is what a campaign may cost the provider and the database at once).
const BroadcastMaxWorkers = 4

// BroadcastDispatchArgs dispatches one broadcast run: inserts its recipients and their send jobs.
type BroadcastDispatchArgs struct {
	RunID uuid.UUID `json:"run_id" river:"unique"`
}

// Kind names the job type in river_job.
func (BroadcastDispatchArgs) Kind() string { return "broadcast_dispatch" }

// InsertOpts: one dispatcher per run while one exists (a second "send" is dropped by River); a crashed one
// is retried and resumes.
func (BroadcastDispatchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// BroadcastSendArgs sends one broadcast run to one user.
type BroadcastSendArgs struct {
	RunID  uuid.UUID `json:"run_id" river:"unique"`
	UserID uuid.UUID `json:"user_id" river:"unique"`
}

// Kind names the job type in river_job.
func (BroadcastSendArgs) Kind() string { return "broadcast_send" }

// InsertOpts: unique by (run, user), the same key as the recipient row; retried with backoff for about
// half a day.
func (BroadcastSendArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueBroadcast, MaxAttempts: 12, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// EnqueueBroadcastDispatchTx inserts a run's dispatcher in tx's transaction (broadcast.Jobs).
func (q *Queue) EnqueueBroadcastDispatchTx(ctx context.Context, tx *gorm.DB, runID uuid.UUID) error {
	return q.InsertTx(ctx, tx, BroadcastDispatchArgs{RunID: runID})
}

// EnqueueBroadcastSendsTx inserts one send job per user in tx's transaction, in one batch, and reports how
// many were new (a duplicate of an existing (run, user) job is skipped by River).
func (q *Queue) EnqueueBroadcastSendsTx(ctx context.Context, tx *gorm.DB, runID uuid.UUID, userIDs []uuid.UUID) (int, error) {
	sqlTx, err := sqlTxOf(tx)
	if err != nil {
		return 0, err
	}
	params := make([]river.InsertManyParams, len(userIDs))
	for i, u := range userIDs {
		params[i] = river.InsertManyParams{Args: BroadcastSendArgs{RunID: runID, UserID: u}}
	}
	res, err := q.client.InsertManyTx(ctx, sqlTx, params)
	if err != nil {
		return 0, fmt.Errorf("enqueue broadcast sends: %w", err)
	}
	n := 0
	for _, r := range res {
		if !r.UniqueSkippedAsDuplicate {
			n++
		}
	}
	return n, nil
}

// Broadcaster does a broadcast's work (*broadcast.Service).
type Broadcaster interface {
	Dispatch(ctx context.Context, runID uuid.UUID) error
	Deliver(ctx context.Context, runID, userID uuid.UUID, lastAttempt bool) error
	GiveUp(ctx context.Context, runID uuid.UUID, cause error) error
}

// BroadcastDispatchWorker runs a run's dispatcher.
type BroadcastDispatchWorker struct {
	river.WorkerDefaults[BroadcastDispatchArgs]
	b Broadcaster
}

// NewBroadcastDispatchWorker builds the worker.
func NewBroadcastDispatchWorker(b Broadcaster) *BroadcastDispatchWorker {
	return &BroadcastDispatchWorker{b: b}
}

// Timeout bounds one dispatch attempt; pages commit as they go, so a cut-off attempt resumes.
func (w *BroadcastDispatchWorker) Timeout(*river.Job[BroadcastDispatchArgs]) time.Duration {
	return 10 * time.Minute
}

// Work dispatches; on the last attempt's failure the run is marked failed (sending it again resumes).
func (w *BroadcastDispatchWorker) Work(ctx context.Context, job *river.Job[BroadcastDispatchArgs]) error {
	err := w.b.Dispatch(ctx, job.Args.RunID)
	if err != nil && job.Attempt >= job.MaxAttempts {
		if gerr := w.b.GiveUp(context.WithoutCancel(ctx), job.Args.RunID, err); gerr != nil {
			return fmt.Errorf("%w (and marking the run failed: %v)", err, gerr)
		}
	}
	return err
}

// BroadcastSendWorker sends one recipient's mail.
type BroadcastSendWorker struct {
	river.WorkerDefaults[BroadcastSendArgs]
	b Broadcaster
}

// NewBroadcastSendWorker builds the worker.
func NewBroadcastSendWorker(b Broadcaster) *BroadcastSendWorker { return &BroadcastSendWorker{b: b} }

// Timeout bounds one send attempt: the throttle's wait plus the provider call (itself bounded at 30 s).
func (w *BroadcastSendWorker) Timeout(*river.Job[BroadcastSendArgs]) time.Duration {
	return time.Minute
}

// Work delivers; the last attempt settles a transient failure as failed instead of leaving it pending.
func (w *BroadcastSendWorker) Work(ctx context.Context, job *river.Job[BroadcastSendArgs]) error {
	return w.b.Deliver(ctx, job.Args.RunID, job.Args.UserID, job.Attempt >= job.MaxAttempts)
}
