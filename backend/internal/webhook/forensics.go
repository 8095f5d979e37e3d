package webhook

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// More reads of the archive for the operator console: the latest delivery of a few events, and outcome
// counts per hour. Each is bounded by an index: (provider, event_id), or the time range of the partitions'
// primary key (created_at, id).

// LatestDeliveriesTx returns the newest archived delivery of each of eventIDs of provider (without bodies),
// keyed by event id. An event whose rows are purged (older than the retention) is absent.
func LatestDeliveriesTx(ctx context.Context, tx *gorm.DB, provider string, eventIDs []string) (map[string]ArchivedDelivery, error) {
	out := map[string]ArchivedDelivery{}
	if len(eventIDs) == 0 {
		return out, nil
	}
	var rows []ArchivedDelivery
	err := tx.WithContext(ctx).Raw(`SELECT DISTINCT ON (event_id) `+archiveColumns+` FROM webhook_events
		WHERE provider = ? AND event_id IN ? ORDER BY event_id, created_at DESC, id DESC`,
		strings.ToLower(provider), eventIDs).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("latest deliveries of %s events: %w", provider, err)
	}
	for _, r := range rows {
		out[r.EventID] = r
	}
	return out, nil
}

// OutcomeHour is how many deliveries were archived in one hour (UTC) with one processing status.
type OutcomeHour struct {
	Hour   time.Time
	Status string
	Count  int64
}

// DeliveriesPerHourTx counts the deliveries archived from since on, per hour and processing status, oldest
// first; provider "" counts every provider. Hours with no delivery are absent.
func DeliveriesPerHourTx(ctx context.Context, tx *gorm.DB, since time.Time, provider string) ([]OutcomeHour, error) {
	out := []OutcomeHour{}
	q := `SELECT date_trunc('hour', created_at AT TIME ZONE 'UTC') AS hour, processing_status AS status, count(*) AS count
		FROM webhook_events WHERE created_at >= ?`
	args := []any{since}
	if provider != "" {
		q += ` AND provider = ?`
		args = append(args, strings.ToLower(provider))
	}
	if err := tx.WithContext(ctx).Raw(q+` GROUP BY 1, 2 ORDER BY 1, 2`, args...).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("deliveries per hour: %w", err)
	}
	for i := range out {
		// created_at AT TIME ZONE 'UTC' is a timestamp without zone; it is UTC by construction.
		out[i].Hour = time.Date(out[i].Hour.Year(), out[i].Hour.Month(), out[i].Hour.Day(), out[i].Hour.Hour(), 0, 0, 0, time.UTC)
	}
	return out, nil
}

// Statuses are the archive's processing statuses (the CHECK on webhook_events), failures first: the
// console's status filter offers them.
var Statuses = []string{StatusFailed, StatusProcessed, StatusSkipped, StatusIgnored, StatusPending}

// Providers names the pipeline's providers, sorted.
func (p *Pipeline) Providers() []string {
	out := make([]string, 0, len(p.providers))
	for name := range p.providers {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
