package broadcast

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// StatusDay is how many broadcast recipients reached one outcome (sent, skipped, failed) on one UTC day.
type StatusDay struct {
	Day    time.Time
	Status string
	Count  int64
}

// MailingPerDayTx counts the recipients settled since since, per UTC day and outcome (the admin
// overview's mailing section), on the partial index of settled rows.
func MailingPerDayTx(ctx context.Context, tx *gorm.DB, since time.Time) ([]StatusDay, error) {
	out := []StatusDay{}
	if err := tx.WithContext(ctx).Raw(`SELECT date_trunc('day', finished_at AT TIME ZONE 'UTC') AS day, status,
		count(*) AS count FROM broadcast_recipients WHERE finished_at >= ? GROUP BY 1, 2 ORDER BY 1, 2`, since).
		Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("mailing per day: %w", err)
	}
	return out, nil
}
