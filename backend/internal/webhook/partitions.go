package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"gorm.io/gorm"
)

// The archive is range-partitioned by month (migration 00013): webhook_events_yYYYYmMM holds the rows
// created in that UTC month. Partitions are created ahead of need and whole expired ones are dropped, so
// retention costs a DROP TABLE per month instead of deleting millions of rows (and the vacuum after).

// PartitionsAhead is how many months past the current one EnsurePartitions keeps ready. A delivery whose
// month has no partition would fail its insert (and be retried), so the daily task keeps a margin.
const PartitionsAhead = 3

// archiveTable is the webhook archive's partitioning.
const archiveTable = db.MonthlyPartitions("webhook_events")

func monthStart(t time.Time) time.Time { return db.MonthStart(t) }

func partitionFor(month time.Time) string { return archiveTable.Name(month) }

// EnsurePartitions creates the partitions of now's month through PartitionsAhead months later that do not
// exist yet, and returns how many it created (db.MonthlyPartitions.Ensure: concurrent runs take turns).
func EnsurePartitions(ctx context.Context, gdb *gorm.DB, now time.Time) (int, error) {
	created := 0
	err := gdb.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		created, err = archiveTable.Ensure(tx, now, monthStart(now).AddDate(0, PartitionsAhead, 0))
		return err
	})
	if err != nil {
		return created, fmt.Errorf("ensure archive partitions: %w", err)
	}
	return created, nil
}

// partitions maps each partition of webhook_events to the month it holds.
func partitions(tx *gorm.DB) (map[string]time.Time, error) { return archiveTable.List(tx) }
