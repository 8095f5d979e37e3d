package webhook

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// The archive is range-partitioned by month (migration 00013): webhook_events_yYYYYmMM holds the rows
// created in that UTC month. Partitions are created ahead of need and whole expired ones are dropped, so
// retention costs a DROP TABLE per month instead of deleting millions of rows (and the vacuum after).

// PartitionsAhead is how many months past the current one EnsurePartitions keeps ready. A delivery whose
// month has no partition would fail its insert (and be retried), so the daily task keeps a margin.
const PartitionsAhead = 3

var partitionName = regexp.MustCompile(`^webhook_events_y(\d{4})m(\d{2})$`)

func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func partitionFor(month time.Time) string {
	return fmt.Sprintf("webhook_events_y%04dm%02d", month.Year(), int(month.Month()))
}

// EnsurePartitions creates the partitions of now's month through PartitionsAhead months later that do not
// exist yet, and returns how many it created. Concurrent runs (two instances' daily tasks) take turns on an
// advisory lock, so CREATE never races CREATE.
func EnsurePartitions(ctx context.Context, gdb *gorm.DB, now time.Time) (int, error) {
	created := 0
	err := gdb.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_events partitions', 0))`).Error; err != nil {
			return err
		}
		existing, err := partitions(tx)
		if err != nil {
			return err
		}
		for m, i := monthStart(now), 0; i <= PartitionsAhead; m, i = m.AddDate(0, 1, 0), i+1 {
			name := partitionFor(m)
			if _, ok := existing[name]; ok {
				continue
			}
			// Names and bounds are ours (a formatted date), not input: fmt is safe here.
			if err := tx.Exec(fmt.Sprintf(`CREATE TABLE %s PARTITION OF webhook_events FOR VALUES FROM ('%s') TO ('%s')`,
				name, m.Format(time.RFC3339), m.AddDate(0, 1, 0).Format(time.RFC3339))).Error; err != nil {
				return fmt.Errorf("create %s: %w", name, err)
			}
			created++
		}
		return nil
	})
	if err != nil {
		return created, fmt.Errorf("ensure archive partitions: %w", err)
	}
	return created, nil
}

// partitions maps each partition of webhook_events to the month it holds.
func partitions(tx *gorm.DB) (map[string]time.Time, error) {
	var names []string
	if err := tx.Raw(`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'webhook_events'::regclass`).Scan(&names).Error; err != nil {
		return nil, fmt.Errorf("list archive partitions: %w", err)
	}
	out := make(map[string]time.Time, len(names))
	for _, n := range names {
		m := partitionName.FindStringSubmatch(n)
		if m == nil {
			continue // not ours: left alone
		}
		t, err := time.Parse("2006-01", m[1]+"-"+m[2])
		if err != nil {
			continue
		}
		out[n] = t
	}
	return out, nil
}
