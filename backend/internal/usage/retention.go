package usage

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// Retention. usage_events is range-partitioned by the month of occurred_at (migration 00030), like the
// webhook archive: partitions are made ahead of need, and whole months past USAGE_EVENT_RETENTION are
// dropped. Claims are deleted once their event is older than the dedup window: no event that old is
// accepted any more, so no duplicate can arrive for them. Counters, gauges and notifications are kept
// (one small row per user, feature and month).

// PartitionsAhead is how many months past the current one EnsurePartitions keeps ready.
const PartitionsAhead = 3

var partitionName = regexp.MustCompile(`^usage_events_y(\d{4})m(\d{2})$`)

func calendarMonth(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func partitionFor(month time.Time) string {
	return fmt.Sprintf("usage_events_y%04dm%02d", month.Year(), int(month.Month()))
}

// partitionLock serialises creating and dropping partitions between instances.
const partitionLock = `SELECT pg_advisory_xact_lock(hashtextextended('usage_events partitions', 0))`

// EnsurePartitions creates the partitions from the month of the oldest acceptable event (now less the
// dedup window) through PartitionsAhead months after now's, and returns how many it created.
func (s *Service) EnsurePartitions(ctx context.Context, now time.Time) (int, error) {
	created := 0
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(partitionLock).Error; err != nil {
			return err
		}
		existing, err := partitions(tx)
		if err != nil {
			return err
		}
		last := calendarMonth(now).AddDate(0, PartitionsAhead, 0)
		for m := calendarMonth(now.Add(-s.cfg.DedupWindow)); !m.After(last); m = m.AddDate(0, 1, 0) {
			name := partitionFor(m)
			if _, ok := existing[name]; ok {
				continue
			}
			// Names and bounds are ours (a formatted date), not input.
			if err := tx.Exec(fmt.Sprintf(`CREATE TABLE %s PARTITION OF usage_events FOR VALUES FROM ('%s') TO ('%s')`,
				name, m.Format(time.RFC3339), m.AddDate(0, 1, 0).Format(time.RFC3339))).Error; err != nil {
				return fmt.Errorf("create %s: %w", name, err)
			}
			created++
		}
		return nil
	})
	if err != nil {
		return created, fmt.Errorf("ensure usage partitions: %w", err)
	}
	return created, nil
}

// partitions maps each partition of usage_events to its month.
func partitions(tx *gorm.DB) (map[string]time.Time, error) {
	var names []string
	if err := tx.Raw(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'usage_events'::regclass`).Scan(&names).Error; err != nil {
		return nil, fmt.Errorf("list usage partitions: %w", err)
	}
	out := make(map[string]time.Time, len(names))
	for _, n := range names {
		m := partitionName.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		if t, err := time.Parse("2006-01", m[1]+"-"+m[2]); err == nil {
			out[n] = t
		}
	}
	return out, nil
}

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
		if err := tx.Exec(partitionLock).Error; err != nil {
			return err
		}
		parts, err := partitions(tx)
		if err != nil {
			return err
		}
		for name, month := range parts {
			if month.AddDate(0, 1, 0).After(before) {
				continue
			}
			var n int
			if err := tx.Raw(fmt.Sprintf(`SELECT count(*) FROM %s`, name)).Scan(&n).Error; err != nil {
				return err
			}
			if err := tx.Exec(fmt.Sprintf(`DROP TABLE %s`, name)).Error; err != nil {
				return fmt.Errorf("drop %s: %w", name, err)
			}
			p.Partitions, p.Events = p.Partitions+1, p.Events+n
		}
		return nil
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
