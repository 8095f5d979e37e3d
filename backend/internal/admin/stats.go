package admin

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// DeliveryWindow is the period Stats counts webhook deliveries over.
const DeliveryWindow = 24 * time.Hour

// Stats is the operator's dashboard, read from one snapshot.
type Stats struct {
	// GeneratedAt is the database's now() of the snapshot; the delivery window ends there.
	GeneratedAt   time.Time
	Users         UserCounts
	Subscriptions []SubscriptionCount
	Deliveries    []DeliveryCount
}

// UserCounts counts user rows; Total includes the soft-deleted ones.
type UserCounts struct {
	Total   int64
	Deleted int64
}

// SubscriptionCount is the number of subscription rows (every one a Paddle, paid subscription; the free
// tier has none) of one tier in one status.
type SubscriptionCount struct {
	Tier   string
	Status string
	Count  int64
}

// DeliveryCount is the number of webhook deliveries archived in the last DeliveryWindow for one provider
// in one processing status. Replays count as deliveries: each has its own archive row.
type DeliveryCount struct {
	Provider string
	Status   string
	Count    int64
}

// Stats counts users, subscriptions by tier and status, and recent deliveries by provider and status,
// all in one read-only snapshot so the sections agree with each other.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	out := Stats{Subscriptions: []SubscriptionCount{}, Deliveries: []DeliveryCount{}}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// now() is the transaction's start time, the same for every statement below.
		err := tx.Raw(`SELECT now(), count(*), count(*) FILTER (WHERE deleted_at IS NOT NULL) FROM users`).Row().
			Scan(&out.GeneratedAt, &out.Users.Total, &out.Users.Deleted)
		if err != nil {
			return err
		}
		err = tx.Raw(`SELECT tier, status, count(*) AS count FROM subscriptions
			GROUP BY tier, status ORDER BY tier, status`).Scan(&out.Subscriptions).Error
		if err != nil {
			return err
		}
		return tx.Raw(`SELECT provider, processing_status AS status, count(*) AS count FROM webhook_events
			WHERE created_at > now() - make_interval(secs => ?) GROUP BY provider, processing_status
			ORDER BY provider, processing_status`, DeliveryWindow.Seconds()).Scan(&out.Deliveries).Error
	}, snapshot)
	if err != nil {
		return Stats{}, fmt.Errorf("admin stats: %w", err)
	}
	return out, nil
}
