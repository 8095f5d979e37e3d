package billing

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// PaddleAPI is what subscription management asks of Paddle (paddleapi.Client; a recording fake in tests).
// Our tables never change from its responses: Paddle's webhooks follow and drive every change.
type PaddleAPI interface {
	CancelSubscription(ctx context.Context, subscriptionID string, immediately bool) error
	ChangePrice(ctx context.Context, subscriptionID, priceID string) error
	ResumeSubscription(ctx context.Context, subscriptionID string) error
	PortalURL(ctx context.Context, customerID string, subscriptionIDs []string) (string, error)
	// EnsureCustomer returns the Paddle customer for email, creating it if Paddle has none.
	EnsureCustomer(ctx context.Context, email string) (string, error)
}

// Sentinels of the management API; httpapi maps them to 409/422.
var (
	ErrAlreadySubscribed = errors.New("already has an active subscription")
	ErrFreeTierCheckout  = errors.New("the free tier needs no checkout")
	ErrUnknownTier       = errors.New("unknown tier")
	// ErrUnknownCheckoutPrice is a checkout price_id that is not one of the tier's prices.
	ErrUnknownCheckoutPrice = errors.New("price is not one of the tier's prices")
	ErrNoSubscription       = errors.New("no active subscription")
	ErrSameTier             = errors.New("already on this tier")
	ErrNotPaused            = errors.New("subscription is not paused")
	ErrNoPaddleAPI          = errors.New("paddle api is not configured")
	// ErrEmailUnverified means the user has no verified email yet, so no Paddle customer can be bound.
	ErrEmailUnverified = errors.New("no verified email address")
)

// CheckoutData is what the frontend passes to Paddle.js Checkout.open.
type CheckoutData struct {
	PaddlePriceID string
	// CustomerID is the user's bound Paddle customer: Paddle.js opens the checkout for it
	// (customer: {id}), so the subscription lands on the customer the portal will open.
	CustomerID    string
	CustomerEmail string
	CustomData    map[string]string
}

// Checkout prepares a signed checkout of priceID, one of tier's prices (the tier's first, its default,
// when ""), for the user's bound Paddle customer (binding it first, through the API, by the user's
// verified email). The signature binds that price. A user with a live subscription changes tier instead.
func (s *Service) Checkout(ctx context.Context, a audit.Actor, tierName, priceID string) (CheckoutData, error) {
	tier, ok := s.tiers.ByName(tierName)
	switch {
	case !ok:
		return CheckoutData{}, fmt.Errorf("checkout %q: %w", tierName, ErrUnknownTier)
	case s.tiers.IsFree(tier):
		return CheckoutData{}, ErrFreeTierCheckout
	case priceID == "":
		priceID = tier.PaddlePriceIDs[0]
	case !tier.HasPrice(priceID):
		return CheckoutData{}, fmt.Errorf("checkout %q at %q: %w", tierName, priceID, ErrUnknownCheckoutPrice)
	}
	if _, err := s.liveSubscription(ctx, a.UserID); err == nil {
		return CheckoutData{}, ErrAlreadySubscribed
	} else if !errors.Is(err, ErrNoSubscription) {
		return CheckoutData{}, err
	}
	u, customer, err := s.boundCustomer(ctx, a)
	if err != nil {
		return CheckoutData{}, err
	}
	return CheckoutData{PaddlePriceID: priceID, CustomerID: customer, CustomerEmail: u.Email, CustomData: map[string]string{
		"clerk_user_id": a.ClerkUserID, "email": u.Email,
		"checkout_sig": s.signer.Sign(a.ClerkUserID, u.Email, priceID, s.now()),
	}}, nil
}

// Subscription returns the user's live subscription, else their most recent one, else ErrNoSubscription.
func (s *Service) Subscription(ctx context.Context, userID uuid.UUID) (models.Subscription, error) {
	var subs []models.Subscription
	err := s.db.WithContext(ctx).Where("user_id = ?", userID).
		Order(clause.OrderBy{Expression: clause.Expr{SQL: "CASE WHEN status IN ? THEN 0 ELSE 1 END, last_event_at DESC",
			Vars: []any{LiveStatuses}}}).
		Limit(1).Find(&subs).Error
	if err != nil {
		return models.Subscription{}, fmt.Errorf("get subscription: %w", err)
	}
	if len(subs) == 0 {
		return models.Subscription{}, ErrNoSubscription
	}
	return subs[0], nil
}

// liveSubscription is the subscription that currently grants access, if any.
func (s *Service) liveSubscription(ctx context.Context, userID uuid.UUID) (models.Subscription, error) {
	sub, err := s.Subscription(ctx, userID)
	if err != nil {
		return sub, err
	}
	if !IsLive(sub.Status) {
		return models.Subscription{}, ErrNoSubscription
	}
	return sub, nil
}

// Cancel asks Paddle to cancel the live subscription, at the end of the period unless immediately.
func (s *Service) Cancel(ctx context.Context, a audit.Actor, immediately bool) error {
	sub, err := s.managed(ctx, a)
	if err != nil {
		return err
	}
	if err := s.api.CancelSubscription(ctx, sub.PaddleSubscriptionID, immediately); err != nil {
		return fmt.Errorf("cancel subscription: %w", err)
	}
	return s.auditRequest(ctx, a, "billing.cancel_requested", sub, map[string]any{"cancel_immediately": immediately})
}

// Change moves the live subscription to target: a paid tier through a prorated price change, free
// through a cancel at period end (there is no Paddle price for free).
func (s *Service) Change(ctx context.Context, a audit.Actor, target string) error {
	tier, ok := s.tiers.ByName(target)
	if !ok {
		return fmt.Errorf("change to %q: %w", target, ErrUnknownTier)
	}
	sub, err := s.managed(ctx, a)
	if err != nil {
		return err
	}
	if sub.Tier == tier.Name {
		return ErrSameTier
	}
	if s.tiers.IsFree(tier) {
		err = s.api.CancelSubscription(ctx, sub.PaddleSubscriptionID, false)
	} else {
		err = s.api.ChangePrice(ctx, sub.PaddleSubscriptionID, tier.PaddlePriceIDs[0])
	}
	if err != nil {
		return fmt.Errorf("change subscription: %w", err)
	}
	return s.auditRequest(ctx, a, "billing.change_requested", sub, map[string]any{"from_tier": sub.Tier, "to_tier": tier.Name})
}

// Resume asks Paddle to resume a paused subscription.
func (s *Service) Resume(ctx context.Context, a audit.Actor) error {
	sub, err := s.managed(ctx, a)
	if err != nil {
		return err
	}
	if sub.Status != "paused" {
		return ErrNotPaused
	}
	if err := s.api.ResumeSubscription(ctx, sub.PaddleSubscriptionID); err != nil {
		return fmt.Errorf("resume subscription: %w", err)
	}
	return s.auditRequest(ctx, a, "billing.resume_requested", sub, nil)
}

// managed is the live subscription the user may act on; it exists only with the Paddle API configured.
func (s *Service) managed(ctx context.Context, a audit.Actor) (models.Subscription, error) {
	if s.api == nil {
		return models.Subscription{}, ErrNoPaddleAPI
	}
	return s.liveSubscription(ctx, a.UserID)
}

func (s *Service) auditRequest(ctx context.Context, a audit.Actor, action string, sub models.Subscription, details map[string]any) error {
	if details == nil {
		details = map[string]any{}
	}
	details["paddle_subscription_id"] = sub.PaddleSubscriptionID
	return audit.Write(ctx, s.db, a.Entry(action, "subscription", sub.PaddleSubscriptionID, details))
}
