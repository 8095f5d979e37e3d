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
	// ChangeItems replaces the subscription's recurring items with items (price id -> quantity). An upgrade
	// is charged at once, prorated, and refused by Paddle when the payment fails; anything else is changed
	// without a charge or a credit.
	ChangeItems(ctx context.Context, subscriptionID string, items map[string]int, upgrade bool) error
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
	return s.signedCheckout(ctx, a, priceID)
}

// signedCheckout is the checkout of priceID for the user's bound Paddle customer (binding it first, through
// the API, by the user's verified email), with the signed custom_data that ties the payment to the user.
func (s *Service) signedCheckout(ctx context.Context, a audit.Actor, priceID string) (CheckoutData, error) {
	u, customer, err := s.boundCustomer(ctx, a)
	if err != nil {
		return CheckoutData{}, err
	}
	return CheckoutData{PaddlePriceID: priceID, CustomerID: customer, CustomerEmail: u.Email, CustomData: map[string]string{
		"clerk_user_id": a.ClerkUserID, "email": u.Email,
		"checkout_sig": s.signer.Sign(a.ClerkUserID, u.Email, s.now()),
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

// Change moves the live subscription to target. To a higher tier (later in the tiers file): an item
// change that swaps the plan for target's price of the same billing interval (a yearly subscriber stays
// yearly), keeps the recurring add-ons (and the seats, into a per-seat tier), and is charged at once,
// prorated; Paddle refuses it if that payment fails, and the month's credits are topped up only when the
// payment completes (onTransactionCompleted). To a lower paid tier: the same item change, billed nothing
// (no charge, no credit back for the month already paid and granted); the tier drops when Paddle's
// snapshot arrives, at once. To free: a cancel at period end (there is no Paddle price for free).
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
	details := map[string]any{"from_tier": sub.Tier, "to_tier": tier.Name}
	if s.tiers.IsFree(tier) {
		err = s.api.CancelSubscription(ctx, sub.PaddleSubscriptionID, false)
	} else {
		var items map[string]int
		if items, err = s.changedItems(ctx, sub, tier); err != nil {
			return err
		}
		current, _ := s.tiers.ByName(sub.Tier) // a tier no longer in the file ranks 0: a change is an upgrade
		upgrade := tier.Rank > current.Rank
		details["items"], details["upgrade"] = items, upgrade
		err = s.api.ChangeItems(ctx, sub.PaddleSubscriptionID, items, upgrade)
	}
	if err != nil {
		return fmt.Errorf("change subscription: %w", err)
	}
	return s.auditRequest(ctx, a, "billing.change_requested", sub, details)
}

// changedItems is the item list that moves sub to tier: its recurring add-ons as they are, and in place
// of the plan, tier's price with the plan's billing cycle (by the tiers file's intervals; the tier's
// first price when none matches or the cycle is unknown), at the plan's quantity for a per-seat tier
// (credits_per_seat), else 1.
func (s *Service) changedItems(ctx context.Context, sub models.Subscription, tier Tier) (map[string]int, error) {
	stored, err := SubscriptionItemsTx(ctx, s.db, []uuid.UUID{sub.ID})
	if err != nil {
		return nil, err
	}
	items := map[string]int{}
	var interval string
	var frequency int
	if p, ok := s.tiers.Price(sub.PaddlePriceID); ok {
		interval, frequency = p.Interval, p.Frequency
	}
	for _, it := range stored[sub.ID] {
		switch {
		case it.Tiered:
			if it.BillingInterval != nil && it.BillingFrequency != nil {
				interval, frequency = *it.BillingInterval, *it.BillingFrequency
			}
		case it.Recurring && it.Status != "inactive":
			items[it.PriceID] = it.Quantity
		}
	}
	price := tier.PaddlePriceIDs[0]
	for _, id := range tier.PaddlePriceIDs {
		if p, _ := s.tiers.Price(id); interval != "" && p.Interval == interval && p.Frequency == frequency {
			price = id
			break
		}
	}
	// Seats carry over to a per-seat tier; a flat tier is one unit of its price.
	items[price] = 1
	if tier.CreditsPerSeat {
		items[price] = max(sub.Quantity, 1)
	}
	return items, nil
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
