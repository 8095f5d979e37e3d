package webhook

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// PurgeArchive deletes archive rows created before `before`, batch rows per statement so no single
// transaction holds many locks or bloats WAL, until none remain or ctx ends. It never touches
// processed_webhook_events: the dedup claims are kept forever, so a replay arriving after the purge
// window is still recognised.
func PurgeArchive(ctx context.Context, db *gorm.DB, before time.Time, batch int) (int, error) {
	total := 0
	for {
		res := db.WithContext(ctx).Exec(`DELETE FROM webhook_events WHERE id IN (
			SELECT id FROM webhook_events WHERE created_at < ? ORDER BY created_at LIMIT ?
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
