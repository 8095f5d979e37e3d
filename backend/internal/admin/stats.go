package admin

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
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

// SubscriptionCount is the number of subscription rows of one tier in one status.
type SubscriptionCount = billing.SubscriptionCount

// DeliveryCount is the number of webhook deliveries archived in the last DeliveryWindow for one provider
// in one processing status.
type DeliveryCount = webhook.DeliveryCount

// Stats counts users, subscriptions by tier and status, and recent deliveries by provider and status,
// all in one read-only snapshot so the sections agree with each other; each count comes from its owner.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	var out Stats
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// now() is the transaction's start time, the same for every statement below.
		if err := tx.Raw(`SELECT now()`).Row().Scan(&out.GeneratedAt); err != nil {
			return err
		}
		var err error
		if out.Users.Total, out.Users.Deleted, err = account.CountUsersTx(ctx, tx); err != nil {
			return err
		}
		if out.Subscriptions, err = billing.CountSubscriptionsTx(ctx, tx); err != nil {
			return err
		}
		out.Deliveries, err = webhook.CountDeliveriesTx(ctx, tx, DeliveryWindow)
		return err
	}, snapshot)
	if err != nil {
		return Stats{}, fmt.Errorf("admin stats: %w", err)
	}
	return out, nil
}
