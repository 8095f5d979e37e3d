package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

// QueueEmail keeps email sends from queueing behind slower jobs.
const QueueEmail = "email"

// EmailArgs is one email to send. Args are stored as JSON in river_job, so they hold only what rendering
// needs, never a secret.
type EmailArgs struct {
	Template       string          `json:"template"`
	To             string          `json:"to"`
	IdempotencyKey string          `json:"idempotency_key"`
	Data           json.RawMessage `json:"data"`
}

// Kind names the job type in river_job.
func (EmailArgs) Kind() string { return "email" }

// InsertOpts retries a failing send with River's exponential backoff for about a day.
func (EmailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueEmail, MaxAttempts: 12}
}

// EmailWorker sends one email. A retry after a timeout may reach the provider twice; the idempotency key
// lets Resend drop the repeat.
type EmailWorker struct {
	river.WorkerDefaults[EmailArgs]
	sender   email.Sender
	renderer email.Renderer
}

// NewEmailWorker builds the worker; renderer carries the deployment's footer (COMPANY_LEGAL_NAME).
func NewEmailWorker(sender email.Sender, renderer email.Renderer) *EmailWorker {
	return &EmailWorker{sender: sender, renderer: renderer}
}

// Timeout bounds one send attempt.
func (w *EmailWorker) Timeout(*river.Job[EmailArgs]) time.Duration { return 30 * time.Second }

// Work renders and sends. Errors that can never succeed (unknown template, an address the provider
// refuses) cancel the job instead of retrying it for a day.
func (w *EmailWorker) Work(ctx context.Context, job *river.Job[EmailArgs]) error {
	msg, err := w.renderer.Render(job.Args.Template, job.Args.Data)
	if err != nil {
		return river.JobCancel(err)
	}
	msg.To = job.Args.To
	msg.IdempotencyKey = job.Args.IdempotencyKey
	if err := w.sender.Send(ctx, msg); err != nil {
		if errors.Is(err, email.ErrPermanent) {
			return river.JobCancel(err)
		}
		return err
	}
	return nil
}
