package app

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/catchup"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
)

// newCatchup builds pull reconciliation: Paddle's event log through the Paddle client when PADDLE_API_KEY
// is set (paddleapi.Client reads it), Clerk's users through the Backend API when CLERK_SECRET_KEY is set.
func (a *App) newCatchup() *catchup.Service {
	d := catchup.Deps{DB: a.db, Pipeline: a.pipeline, Log: a.log,
		PaddleEventTypes: slices.Sorted(maps.Keys(a.billing.PaddleHandlers())),
		UserExists: func(ctx context.Context, clerkUserID string) (bool, error) {
			_, ok, err := account.UserIDByClerkIDTx(ctx, a.db, clerkUserID)
			return ok, err
		}}
	if events, ok := a.paddle.(catchup.PaddleEvents); ok {
		d.Paddle = events
	}
	switch {
	case a.opts.ClerkUsers != nil:
		d.Clerk = a.opts.ClerkUsers
	case a.cfg.ClerkSecretKey != "":
		d.Clerk = catchup.NewClerkUsers(a.cfg.ClerkSecretKey, "")
	}
	return catchup.New(d)
}

// catchupTasks schedules the Paddle events sync every PADDLE_EVENTS_SYNC_INTERVAL, when there is a Paddle
// client to read the log with.
func (a *App) catchupTasks() []jobs.Task {
	if _, ok := a.paddle.(catchup.PaddleEvents); !ok {
		return nil
	}
	return []jobs.Task{{Name: "paddle-events-sync", Every: a.cfg.PaddleEventsSyncInterval, RealTime: true,
		Run: func(ctx context.Context, _ time.Time) (jobs.Report, error) {
			r, err := a.catchup.SyncPaddle(ctx)
			return r.Map(), err
		}}}
}

// SyncPaddle backfills Paddle's events of the last `since` through the pipeline (`fabrica sync paddle`).
func (a *App) SyncPaddle(ctx context.Context, since time.Duration) (catchup.Report, error) {
	return a.catchup.BackfillPaddle(ctx, time.Now().Add(-since))
}

// SyncClerkUsers creates, through the user.created handler, every Clerk user we have no row for
// (`fabrica sync clerk-users`).
func (a *App) SyncClerkUsers(ctx context.Context) (catchup.Report, error) {
	return a.catchup.SyncClerkUsers(ctx)
}
