// Package catchup is pull reconciliation: it reads the providers' own records of what happened (Paddle's
// event log, Clerk's user list) and feeds whatever the webhooks never brought through the same idempotent
// pipeline. Paddle retries a failed webhook for about three days and Svix for about a day; an outage or a
// misconfigured endpoint longer than that loses events for good unless something pulls them. An event we
// already have is a duplicate (counted, nothing written); a missing one is processed exactly as its webhook
// would have been, archived with source "sync". The sync_cursors table belongs to this package.
package catchup

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/billing/paddleapi"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Pipeline is the part of the webhook pipeline a pull needs (*webhook.Pipeline).
type Pipeline interface {
	IngestTrusted(ctx context.Context, provider, source string, h http.Header, body []byte) (webhook.Result, error)
	Known(ctx context.Context, provider, eventID string) (bool, error)
}

// PaddleEvents is Paddle's event log (*paddleapi.Client; a fake API server in tests).
type PaddleEvents interface {
	ListEvents(ctx context.Context, after string, types []string) (paddleapi.EventPage, error)
}

// ClerkUsers is Clerk's user list (the Backend API through clerk-sdk-go; a fake in tests). Each user is the
// JSON of Clerk's user object, the `data` of a user.created webhook.
type ClerkUsers interface {
	ListUsers(ctx context.Context, offset, limit int) (users []ClerkUser, total int, err error)
}

// ClerkUser is one user of Clerk's list: its id and its JSON.
type ClerkUser struct {
	ID   string
	JSON []byte
}

// Deps are the syncs' collaborators; Paddle or Clerk may be nil (their sync is then off).
type Deps struct {
	DB       *gorm.DB
	Pipeline Pipeline
	Paddle   PaddleEvents
	Clerk    ClerkUsers
	// PaddleEventTypes are the event types with a handler: the log is read for these only (every other
	// type would only be archived as ignored).
	PaddleEventTypes []string
	// UserExists reports whether we have a user for a Clerk id (account.UserIDByClerkIDTx).
	UserExists func(ctx context.Context, clerkUserID string) (bool, error)
	Log        *slog.Logger
	Now        func() time.Time
}

// Service runs the syncs.
type Service struct{ d Deps }

// New builds the service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{d: d}
}

// Report counts one sync run. Listed = Skipped + Processed + Failed.
type Report struct {
	// Listed is how many entries the provider listed.
	Listed int
	// Skipped were already claimed (the webhook brought them): nothing written.
	Skipped int
	// Processed went through the pipeline (processed or ignored).
	Processed int
	// Failed went through the pipeline and were archived failed; the cursor moves past them (a poison event
	// must not stop the sync) and an operator replays them from the archive.
	Failed int
}

// Map is the report as job counters.
func (r Report) Map() map[string]int {
	return map[string]int{"listed": r.Listed, "skipped": r.Skipped, "processed": r.Processed, "failed": r.Failed}
}

func (r *Report) add(res webhook.Result) {
	switch res.Status {
	case webhook.StatusSkipped:
		r.Skipped++
	case webhook.StatusFailed:
		r.Failed++
	default:
		r.Processed++
	}
}

// ErrDisabled means the sync has no provider client (PADDLE_API_KEY or CLERK_SECRET_KEY unset).
var ErrDisabled = fmt.Errorf("sync is off: the provider's API key is not configured")
