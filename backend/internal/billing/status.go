package billing

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// LiveStatuses are the subscription statuses that have not ended: the subscription can still be managed
// (resumed, changed, canceled), is canceled with the account, and counts as the one a new checkout would
// duplicate. This is the one definition; SQL takes it as a parameter (`status IN ?`) rather than a retyped
// list. A canceled subscription keeps its tier until its period ends, which is a matter of dates, not of
// status (see syncTier and ExpireCanceled).
var LiveStatuses = []string{"trialing", "active", "past_due", "paused"}

// AccessStatuses are the live statuses that grant the subscription's paid tier: a trial, the active
// period and dunning (past_due). A paused subscription is live but not paid for: its user is on free.
var AccessStatuses = []string{"trialing", "active", "past_due"}

// IsLive reports whether status grants access.
func IsLive(status string) bool { return slices.Contains(LiveStatuses, status) }

// The subscriptions table belongs to this package. Other packages read it through the functions below,
// on their own transaction: account (as its Billing interface, through the Service methods) and admin.

// LiveSubscriptionIDsTx returns the Paddle ids of the user's subscriptions that grant access (account
// cancels them when the account is deleted).
func (s *Service) LiveSubscriptionIDsTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID) ([]string, error) {
	var ids []string
	if err := tx.WithContext(ctx).Raw(`SELECT paddle_subscription_id FROM subscriptions
		WHERE user_id = ? AND status IN ?`, userID, LiveStatuses).Scan(&ids).Error; err != nil {
		return nil, fmt.Errorf("live subscriptions: %w", err)
	}
	return ids, nil
}

// SubscriptionsTx returns all of the user's subscriptions, oldest first (account.Billing).
func (s *Service) SubscriptionsTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID) ([]models.Subscription, error) {
	return SubscriptionsTx(ctx, tx, userID)
}

// SubscriptionsTx returns all of the user's subscriptions, oldest first.
func SubscriptionsTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID) ([]models.Subscription, error) {
	subs := []models.Subscription{}
	if err := tx.WithContext(ctx).Where("user_id = ?", userID).Order("created_at, id").Find(&subs).Error; err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	return subs, nil
}

// SubscriptionCount is the number of subscriptions of one tier in one status.
type SubscriptionCount struct {
	Tier   string
	Status string
	Count  int64
}

// CountSubscriptionsTx counts subscriptions by tier and status (every one a Paddle, paid subscription; the
// free tier has none).
func CountSubscriptionsTx(ctx context.Context, tx *gorm.DB) ([]SubscriptionCount, error) {
	out := []SubscriptionCount{}
	if err := tx.WithContext(ctx).Raw(`SELECT tier, status, count(*) AS count FROM subscriptions
		GROUP BY tier, status ORDER BY tier, status`).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("count subscriptions: %w", err)
	}
	return out, nil
}
