package webhook

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// ClaimView is the dedup claims as other packages' checks read them (docs/architecture.md, the verify
// views): provider, event id, event type and when the claim committed.
const ClaimView = `SELECT provider, event_id, event_type, processed_at FROM processed_webhook_events`

// The archive rows a claim commits with: its delivery's status when the handler ran (processed) or when
// no handler wants the type (ignored). Every other row is a duplicate (skipped) or a failure (no claim).
var claimedStatuses = []string{StatusProcessed, StatusIgnored}

// Checks are the pipeline's consistency checks, for `fabrica verify webhooks`. retention is
// WEBHOOK_ARCHIVE_RETENTION: the purge removes archive rows older than that, never claims, so only a claim
// younger than it must still have its archive row.
func Checks(retention time.Duration) []verify.Check {
	args := func() map[string]any {
		return map[string]any{"retention": retention.Seconds(), "claimed": claimedStatuses}
	}
	return []verify.Check{
		{Name: "webhooks.claim_is_archived", Area: "webhooks",
			Doc: "every claim younger than the archive's retention has the archive row it committed with (processed or ignored)",
			Run: func(ctx context.Context, tx *gorm.DB, _ verify.Scope) ([]verify.Violation, error) {
				// The claim and its archive row are one statement (claimAndArchiveSQL), so they share
				// now(): a claim inside the window has a row inside it. The day of margin on the archive
				// side only lets Postgres skip the partitions the window cannot reach.
				return verify.Rows(ctx, tx, "webhooks.claim_is_archived", `SELECT c.provider || ' ' || c.event_id AS subject,
					format('%s claimed at %s; no archive row processed or ignored, and the retention (%s) has not purged it yet',
					       c.event_type, c.processed_at, make_interval(secs => @retention)) AS detail
				  FROM processed_webhook_events c
				 WHERE c.processed_at >= now() - make_interval(secs => @retention)
				   AND NOT EXISTS (SELECT 1 FROM webhook_events a
				                    WHERE a.provider = c.provider AND a.event_id = c.event_id AND a.processing_status IN @claimed
				                      AND a.created_at >= now() - make_interval(secs => @retention) - interval '1 day')`, args())
			}},
		{Name: "webhooks.archive_is_claimed", Area: "webhooks",
			Doc: "every archive row processed or ignored has its claim (claims are never purged)",
			Run: func(ctx context.Context, tx *gorm.DB, _ verify.Scope) ([]verify.Violation, error) {
				return verify.Rows(ctx, tx, "webhooks.archive_is_claimed", `SELECT a.provider || ' ' || a.event_id AS subject,
					format('archive row %s (%s, %s at %s) has no claim', a.id, a.event_type, a.processing_status, a.created_at) AS detail
				  FROM webhook_events a
				 WHERE a.processing_status IN @claimed
				   AND NOT EXISTS (SELECT 1 FROM processed_webhook_events c WHERE c.provider = a.provider AND c.event_id = a.event_id)`, args())
			}},
		{Name: "webhooks.archive_partitions", Area: "webhooks",
			Doc: "the archive has its partitions for the current and the next month (the archive-partitions task keeps them ahead)",
			Run: checkPartitions},
	}
}

// checkPartitions: a delivery whose month has no partition fails its insert and is retried until the
// archive-partitions task creates it; the task keeps PartitionsAhead months ready, so a missing current or
// next month means the task has not run for weeks.
func checkPartitions(ctx context.Context, tx *gorm.DB, _ verify.Scope) ([]verify.Violation, error) {
	var now time.Time
	if err := tx.WithContext(ctx).Raw(`SELECT now()`).Scan(&now).Error; err != nil {
		return nil, err
	}
	existing, err := partitions(tx.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	var out []verify.Violation
	for _, m := range []time.Time{monthStart(now), monthStart(now).AddDate(0, 1, 0)} {
		if _, ok := existing[partitionFor(m)]; !ok {
			out = append(out, verify.Violation{Subject: partitionFor(m),
				Detail: fmt.Sprintf("no archive partition for %s: deliveries of that month cannot be archived (run `fabrica jobs run archive-partitions`)", m.Format("2006-01"))})
		}
	}
	return out, nil
}
