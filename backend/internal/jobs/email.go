package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

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
	completeNow(ctx, job)
	return nil
}

// completeNow records the job completed in a transaction of its own, right after the send. River would
// otherwise record it with the next batch of completions, up to a quarter second later; a crash inside
// that window sends the mail again once the job is rescued (an SMTP server has no idempotency key to
// drop the repeat). This narrows the window to one round trip (docs/reliability.md). If it fails, River's
// own completion still follows.
func completeNow[T river.JobArgs](ctx context.Context, job *river.Job[T]) {
	client, err := river.ClientFromContextSafely[pgx.Tx](ctx)
	if err != nil {
		return // not run by the runner's client (a direct call in a test)
	}
	drv := client.Driver()
	execTx, err := drv.GetExecutor().Begin(context.WithoutCancel(ctx))
	if err != nil {
		return
	}
	tx := drv.UnwrapTx(execTx)
	if _, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return
	}
	_ = tx.Commit(context.WithoutCancel(ctx))
}

// QueuedEmail is one transactional email job as River holds it.
type QueuedEmail struct {
	Template       string    `json:"template"`
	To             string    `json:"to"`
	IdempotencyKey string    `json:"idempotency_key"`
	State          string    `json:"state"` // River's: available, running, completed, retryable, cancelled, ...
	CreatedAt      time.Time `json:"created_at"`
}

// EmailsTo lists the transactional email jobs addressed to addr, oldest first: development's view of what
// was mailed (the log mailer prints the mails themselves). River's table has no index on the address, so
// this reads every email job: a development tool, never a production path.
func EmailsTo(ctx context.Context, db *sql.DB, addr string) ([]QueuedEmail, error) {
	rows, err := db.QueryContext(ctx, `SELECT args->>'template', args->>'to', coalesce(args->>'idempotency_key', ''),
		state::text, created_at FROM river_job WHERE kind = $1 AND lower(args->>'to') = lower($2) ORDER BY id`,
		EmailArgs{}.Kind(), addr)
	if err != nil {
		return nil, fmt.Errorf("list emails: %w", err)
	}
	defer rows.Close()
	var out []QueuedEmail
	for rows.Next() {
		var e QueuedEmail
		if err := rows.Scan(&e.Template, &e.To, &e.IdempotencyKey, &e.State, &e.CreatedAt); err != nil {
			return nil, fmt.Errorf("list emails: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
