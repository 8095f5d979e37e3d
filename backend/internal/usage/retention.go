package usage

import (
	"context"
	"fmt"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"gorm.io/gorm"
)

// Retention. usage_events is range-partitioned by the month of occurred_at (migration 00030), like the
// webhook archive: partitions are made ahead of need, and whole months past USAGE_EVENT_RETENTION are
// dropped. Claims are deleted once their event is older than the dedup window: no event that old is
// accepted any more, so no duplicate can arrive for them. Counters, gauges and notifications are kept
// (one small row per user, feature and month).

// PartitionsAhead is how many months past the current one EnsurePartitions keeps ready.
const PartitionsAhead = 3

// events is usage_events' partitioning.
const events = db.MonthlyPartitions("usage_events")

func calendarMonth(t time.Time) time.Time { return db.MonthStart(t) }

// EnsurePartitions creates the partitions from the month of the oldest acceptable event (now less the
// dedup window) through PartitionsAhead months after now's, and returns how many it created.
func (s *Service) EnsurePartitions(ctx context.Context, now time.Time) (int, error) {
	created := 0
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		created, err = events.Ensure(tx, now.Add(-s.cfg.DedupWindow), calendarMonth(now).AddDate(0, PartitionsAhead, 0))
		return err
	})
	if err != nil {
		return created, fmt.Errorf("ensure usage partitions: %w", err)
	}
	return created, nil
}

// partitions maps each partition of usage_events to its month.
func partitions(tx *gorm.DB) (map[string]time.Time, error) { return events.List(tx) }

// Purged is what one Purge did.
type Purged struct {
	Partitions int // event partitions dropped
	Events     int // events in them
	Claims     int // claims past the dedup window
}

// Purge drops the event partitions whose whole month is older than the retention, and deletes claims
// whose event is older than the dedup window (a reservation's too: its deadline is a day at most, and
// the reconciler has settled it), batch rows per statement until none remain or ctx ends.
func (s *Service) Purge(ctx context.Context, now time.Time, batch int) (Purged, error) {
	var p Purged
	before := now.Add(-s.cfg.Retention)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		p.Partitions, p.Events, err = events.DropBefore(tx, before)
		return err
	})
	if err != nil {
		return p, fmt.Errorf("purge usage: %w", err)
	}
	for {
		res := s.db.WithContext(ctx).Exec(`DELETE FROM usage_claims WHERE (user_id, key) IN (
			SELECT user_id, key FROM usage_claims WHERE occurred_at < ?
			ORDER BY occurred_at LIMIT ? FOR UPDATE SKIP LOCKED)`, now.Add(-s.cfg.DedupWindow), batch)
		if res.Error != nil {
			return p, fmt.Errorf("purge usage claims: %w", res.Error)
		}
		p.Claims += int(res.RowsAffected)
		if res.RowsAffected < int64(batch) || ctx.Err() != nil {
			return p, nil
		}
	}
}

// oldestPartition is the start of the oldest month usage_events still holds (zero when none): periods
// starting before it may have lost events to retention, so the checks skip them.
func oldestPartition(tx *gorm.DB) (time.Time, error) {
	parts, err := partitions(tx)
	if err != nil {
		return time.Time{}, err
	}
	var oldest time.Time
	for _, m := range parts {
		if oldest.IsZero() || m.Before(oldest) {
			oldest = m
		}
	}
	return oldest, nil
}
