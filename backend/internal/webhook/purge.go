package webhook

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// PurgeArchive removes archive rows created before `before` and returns how many. Whole partitions whose
// month ends at or before `before` are dropped (one DROP TABLE, no dead rows left to vacuum); in the one
// partly expired partition the old rows are deleted, batch rows per statement so no single transaction
// holds many locks or bloats WAL, until none remain or ctx ends. It never touches processed_webhook_events:
// the dedup claims are kept forever, so a replay arriving after the purge window is still recognised.
func PurgeArchive(ctx context.Context, gdb *gorm.DB, before time.Time, batch int) (int, error) {
	total, err := dropExpiredPartitions(ctx, gdb, before)
	if err != nil {
		return total, err
	}
	for {
		res := gdb.WithContext(ctx).Exec(`DELETE FROM webhook_events WHERE (created_at, id) IN (
			SELECT created_at, id FROM webhook_events WHERE created_at < ? ORDER BY created_at LIMIT ?
			FOR UPDATE SKIP LOCKED)`, before, batch)
		if res.Error != nil {
			return total, fmt.Errorf("purge archive: %w", res.Error)
		}
		total += int(res.RowsAffected)
		if res.RowsAffected < int64(batch) || ctx.Err() != nil {
			return total, nil
		}
	}
}

// dropExpiredPartitions drops every partition whose whole month is before `before`, counting its rows.
func dropExpiredPartitions(ctx context.Context, gdb *gorm.DB, before time.Time) (int, error) {
	dropped := 0
	err := gdb.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// Under the same lock as EnsurePartitions: creating and dropping never interleave.
		var err error
		_, dropped, err = archiveTable.DropBefore(tx, before)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge archive: %w", err)
	}
	return dropped, nil
}
