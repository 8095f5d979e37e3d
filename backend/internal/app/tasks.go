package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Batch bounds per task run: a run does a bounded amount of work and the schedule does the rest.
const (
	reconcileBatch  = 200
	hardDeleteBatch = 500
	purgeBatch      = 5000
)

// tasks are the scheduled maintenance jobs, the modules' last (module.Task). Each is idempotent and bounded, so River may run it on any
// instance, twice, or next to an operator's `fabrica jobs run`.
func (a *App) tasks() []jobs.Task {
	return append([]jobs.Task{
		{Name: "reconcile-credits", Every: time.Minute, Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
			r, err := a.ledger.ReconcileOrphans(ctx, now, reconcileBatch)
			return jobs.Report{"scanned": r.Scanned, "refunded": r.Refunded, "skipped_lifecycle": r.SkippedLifecycle}, err
		}},
		// Every five minutes: a bucket past its expiry is already unspendable (a spend writes off its own
		// user's due buckets first, a balance read leaves them out); the job writes off everyone else's in
		// batches that skip a user whose spend holds the lock, so the breakage is booked within minutes.
		{Name: "expire-credits", Every: 5 * time.Minute, Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
			r, err := a.ledger.ExpireDue(ctx, now)
			return jobs.Report{"buckets": r.Buckets, "credits": r.Credits, "skipped": r.Skipped}, err
		}},
		{Name: "expire-subscriptions", Every: time.Hour, Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
			n, err := a.billing.ExpireCanceled(ctx, now)
			return jobs.Report{"downgraded": n}, err
		}},
		// Hourly, so a yearly plan's month is granted within the hour it starts; a run only reads the
		// subscriptions whose next month is due (next_grant_at).
		{Name: "monthly-grants", Every: time.Hour, Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
			r, err := a.billing.GrantMonths(ctx, now)
			return jobs.Report{"subscriptions": r.Subscriptions, "grants": r.Grants, "credits": r.Credits}, err
		}},
		{Name: "hard-delete-accounts", Every: 24 * time.Hour, Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
			n, err := a.accounts.HardDeleteExpired(ctx, now, hardDeleteBatch)
			return jobs.Report{"erased": n}, err
		}},
		// The archive is partitioned and kept by its rows' created_at, which the database stamps: storage,
		// not a decision about anyone, so these two go by the machine's time, never by a moved clock (a
		// simulation months ahead would otherwise purge the very deliveries it wants to inspect).
		{Name: "archive-partitions", Every: 24 * time.Hour, RealTime: true, Run: func(ctx context.Context, _ time.Time) (jobs.Report, error) {
			n, err := webhook.EnsurePartitions(ctx, a.db, time.Now())
			return jobs.Report{"created": n}, err
		}},
		{Name: "purge-archive", Every: 24 * time.Hour, RealTime: true, Run: func(ctx context.Context, _ time.Time) (jobs.Report, error) {
			n, err := webhook.PurgeArchive(ctx, a.db, time.Now().Add(-a.cfg.WebhookArchiveRetention), purgeBatch)
			return jobs.Report{"deleted": n}, err
		}},
		{Name: "purge-audit", Every: 24 * time.Hour, Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
			n, err := audit.Purge(ctx, a.db, account.AuditRetention(now, a.cfg.AuditRetention, a.cfg.AuditConsentRetention), purgeBatch)
			return jobs.Report{"deleted": n}, err
		}},
		// Daily: every consistency check in one read-only snapshot, and a mail to the operators about each
		// violation no earlier run reported (docs/operations.md, *Verify*). It fixes nothing. RealTime: a
		// development clock move does not run it (a simulation judges the invariants once, at its end:
		// scenarios that each play their own stretch of time are not all consistent at every instant).
		{Name: "verify", Every: 24 * time.Hour, RealTime: true, Run: a.verifyTask},
	}, slices.Concat(a.usageTasks(), a.catchupTasks(), a.blocklistTasks(), a.moduleTasks())...)
}

// blocklistTasks refreshes the disposable-email blocklist daily from DISPOSABLE_DOMAINS_URL, when it is set,
// into the table every instance reads (a failed download keeps the list in use).
func (a *App) blocklistTasks() []jobs.Task {
	if a.cfg.DisposableDomainsURL == "" {
		return nil
	}
	return []jobs.Task{{Name: "disposable-domains", Every: 24 * time.Hour, RealTime: true,
		Run: func(ctx context.Context, _ time.Time) (jobs.Report, error) {
			n, err := a.blocklist.Refresh(ctx)
			return jobs.Report{"domains": n}, err
		}}}
}

// RunTask runs one task by name now (`fabrica jobs run NAME`).
func (a *App) RunTask(ctx context.Context, name string) (jobs.Report, error) {
	for _, t := range a.tasks() {
		if t.Name == name {
			return jobs.RunTask(ctx, t, a.clock.Now(), a.log)
		}
	}
	return nil, fmt.Errorf("unknown task %q (known: %s)", name, a.TaskNames())
}

// TaskNames lists the tasks for help output.
func (a *App) TaskNames() string {
	s := ""
	for i, t := range a.tasks() {
		if i > 0 {
			s += ", "
		}
		s += t.Name
	}
	return s
}

// PurgeArchive deletes archive rows older than olderThan, WEBHOOK_ARCHIVE_RETENTION when zero
// (`fabrica purge-archive --older-than`). It returns the count and the age used.
func (a *App) PurgeArchive(ctx context.Context, olderThan time.Duration) (int, time.Duration, error) {
	if olderThan <= 0 {
		olderThan = a.cfg.WebhookArchiveRetention
	}
	n, err := webhook.PurgeArchive(ctx, a.db, time.Now().Add(-olderThan), purgeBatch)
	a.log.Info("archive purged", "older_than", olderThan.String(), "deleted", n)
	return n, olderThan, err
}

// Replay re-runs an archived delivery (`fabrica replay ID`).
func (a *App) Replay(ctx context.Context, id string) (webhook.Result, error) {
	uid, err := uuid.Parse(id)
	if err != nil {
		return webhook.Result{}, fmt.Errorf("replay: %q is not a webhook event id", id)
	}
	return a.pipeline.Replay(ctx, uid)
}
