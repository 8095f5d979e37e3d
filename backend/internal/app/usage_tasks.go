package app

import (
	"context"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
)

// notifyBatch bounds one usage-notifications run (a notification is one small transaction).
const notifyBatch = 200

// usageTasks keep usage's tables: partitions made ahead, old events and keys purged, and notifications a
// request did not deliver itself (a crash after the commit, an event recorded in an app's own
// transaction) delivered within the minute.
func (a *App) usageTasks() []jobs.Task {
	return []jobs.Task{
		{Name: "usage-notifications", Every: time.Minute, Run: func(ctx context.Context, _ time.Time) (jobs.Report, error) {
			n, err := a.usage.DeliverNotifications(ctx, notifyBatch)
			return jobs.Report{"delivered": n}, err
		}},
		{Name: "usage-partitions", Every: 24 * time.Hour, Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
			n, err := a.usage.EnsurePartitions(ctx, now)
			return jobs.Report{"created": n}, err
		}},
		{Name: "purge-usage", Every: 24 * time.Hour, Run: func(ctx context.Context, now time.Time) (jobs.Report, error) {
			p, err := a.usage.Purge(ctx, now, purgeBatch)
			if err != nil {
				return jobs.Report{"partitions": p.Partitions, "events": p.Events, "claims": p.Claims}, err
			}
			keys, err := a.idempotency.Purge(ctx, now.Add(-a.cfg.UsageDedupWindow), purgeBatch)
			return jobs.Report{"partitions": p.Partitions, "events": p.Events, "claims": p.Claims, "idempotency_keys": keys}, err
		}},
	}
}
