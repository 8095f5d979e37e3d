package admin

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Bounds of DeliveriesPerHour's window, in hours.
const (
	DefaultDeliveryHours = 24
	MaxDeliveryHours     = 7 * 24
)

// DeliveryHours is the webhook deliveries of a window, per hour and outcome.
type DeliveryHours struct {
	// GeneratedAt is the database's now(); the window is the hours up to and including its hour.
	GeneratedAt time.Time
	Since       time.Time
	// Hours has one entry per hour (UTC), oldest first, zeros included.
	Hours []DeliveryHour
}

// DeliveryHour is one hour's deliveries by processing status (only the statuses that occurred).
type DeliveryHour struct {
	Hour   time.Time
	Counts map[string]int64
}

// DeliveriesPerHour counts the deliveries of the last hours hours (clamped to 1..MaxDeliveryHours; 0 is
// DefaultDeliveryHours, the current hour included) per hour and processing status; provider "" counts all.
func (s *Service) DeliveriesPerHour(ctx context.Context, hours int, provider string) (DeliveryHours, error) {
	hours = clampHours(hours)
	var out DeliveryHours
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Raw(`SELECT now()`).Row().Scan(&out.GeneratedAt); err != nil {
			return err
		}
		out.GeneratedAt = out.GeneratedAt.UTC()
		out.Since = out.GeneratedAt.Truncate(time.Hour).Add(-time.Duration(hours-1) * time.Hour)
		rows, err := webhook.DeliveriesPerHourTx(ctx, tx, out.Since, provider)
		if err != nil {
			return err
		}
		out.Hours = make([]DeliveryHour, hours)
		for i := range out.Hours {
			out.Hours[i] = DeliveryHour{Hour: out.Since.Add(time.Duration(i) * time.Hour), Counts: map[string]int64{}}
		}
		for _, r := range rows {
			if i := int(r.Hour.Sub(out.Since) / time.Hour); i >= 0 && i < hours {
				out.Hours[i].Counts[r.Status] += r.Count
			}
		}
		return nil
	}, snapshot)
	if err != nil {
		return DeliveryHours{}, fmt.Errorf("admin deliveries per hour: %w", err)
	}
	return out, nil
}

func clampHours(h int) int {
	switch {
	case h == 0:
		return DefaultDeliveryHours
	case h < 1:
		return 1
	case h > MaxDeliveryHours:
		return MaxDeliveryHours
	}
	return h
}
