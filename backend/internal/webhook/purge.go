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
		// The same lock as EnsurePartitions: creating and dropping never interleave.
		if err := archiveTable.Lock(tx); err != nil {
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
			dropped += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("purge archive: %w", err)
	}
	return dropped, nil
}
