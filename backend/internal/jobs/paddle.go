package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"gorm.io/gorm"
)

// CancelSubscriptionArgs asks Paddle to cancel a subscription at the end of its paid period.
type CancelSubscriptionArgs struct {
	PaddleSubscriptionID string `json:"paddle_subscription_id"`
}

// Kind names the job type in river_job.
func (CancelSubscriptionArgs) Kind() string { return "paddle_cancel_subscription" }

// EnqueueCancelSubscriptionTx inserts a cancellation job in tx's transaction.
func (q *Queue) EnqueueCancelSubscriptionTx(ctx context.Context, tx *gorm.DB, paddleSubscriptionID string) error {
	return q.InsertTx(ctx, tx, CancelSubscriptionArgs{PaddleSubscriptionID: paddleSubscriptionID})
}

// SubscriptionCanceler is the Paddle call the job makes (paddleapi.Client, or a fake).
type SubscriptionCanceler interface {
	CancelSubscription(ctx context.Context, subscriptionID string, immediately bool) error
}

// CancelSubscriptionWorker cancels at Paddle. Cancelling twice is harmless at Paddle, so River's
// at-least-once delivery needs no extra guard.
type CancelSubscriptionWorker struct {
	river.WorkerDefaults[CancelSubscriptionArgs]
	api SubscriptionCanceler
	// done reports Paddle errors that mean "nothing left to cancel" (not found, already canceled).
	done func(error) bool
}

// NewCancelSubscriptionWorker builds the worker; api may be nil when PADDLE_API_KEY is unset, and then the
// job is cancelled with an error that says so (visible in river_job) instead of retrying for a day.
func NewCancelSubscriptionWorker(api SubscriptionCanceler, done func(error) bool) *CancelSubscriptionWorker {
	return &CancelSubscriptionWorker{api: api, done: done}
}

var errNoPaddleAPI = errors.New("paddle api is not configured (PADDLE_API_KEY): cancel this subscription in the Paddle dashboard")

// Timeout bounds one attempt: paddleapi's own retries take at most ~45 s in the worst case.
func (w *CancelSubscriptionWorker) Timeout(*river.Job[CancelSubscriptionArgs]) time.Duration {
	return time.Minute
}

// Work asks Paddle to cancel at the next billing period.
func (w *CancelSubscriptionWorker) Work(ctx context.Context, job *river.Job[CancelSubscriptionArgs]) error {
	if w.api == nil {
		return river.JobCancel(fmt.Errorf("cancel %s: %w", job.Args.PaddleSubscriptionID, errNoPaddleAPI))
	}
	err := w.api.CancelSubscription(ctx, job.Args.PaddleSubscriptionID, false)
	if err != nil && w.done != nil && w.done(err) {
		return nil
	}
	return err
}
