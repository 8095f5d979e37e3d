package billing

import (
	"context"
	"fmt"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// ActionCustomerBound is audited when a user is first bound to a Paddle customer.
const ActionCustomerBound = "billing.customer_bound"

// boundCustomer returns the user and their Paddle customer, binding one first if they have none: the
// server asks Paddle for the customer of the user's verified email (creating it) and stores the id on the
// user. That binding, made by our own API call, is what the portal and the customer fallback trust; a
// customer id arriving in a payload never is.
func (s *Service) boundCustomer(ctx context.Context, a audit.Actor) (models.User, string, error) {
	u, err := account.UserTx(ctx, s.db, a.UserID)
	if err != nil {
		return models.User{}, "", err
	}
	if u.PaddleCustomerID != nil {
		return u, *u.PaddleCustomerID, nil
	}
	if !u.EmailVerified || u.Email == "" {
		return u, "", ErrEmailUnverified
	}
	if s.api == nil {
		return u, "", ErrNoPaddleAPI
	}
	id, err := s.api.EnsureCustomer(ctx, u.Email)
	if err != nil {
		return u, "", fmt.Errorf("bind paddle customer: %w", err)
	}
	bound, err := account.BindPaddleCustomerTx(ctx, s.db, u.ID, id)
	if err != nil {
		return u, "", err
	}
	if bound == id {
		if err := audit.Write(ctx, s.db, a.Entry(ActionCustomerBound, "user", a.ClerkUserID,
			map[string]any{"paddle_customer_id": id})); err != nil {
			return u, "", err
		}
	}
	return u, bound, nil
}

// PortalURL creates a Paddle customer-portal session for the user's bound customer, deep-linking the
// user's subscriptions of that customer (a flagged customer_mismatch one belongs to someone else's
// customer and is never offered). The URL carries a temporary token: it is returned, never stored.
func (s *Service) PortalURL(ctx context.Context, a audit.Actor) (string, error) {
	if s.api == nil {
		return "", ErrNoPaddleAPI
	}
	subs, err := SubscriptionsTx(ctx, s.db, a.UserID)
	if err != nil {
		return "", err
	}
	if len(subs) == 0 {
		return "", ErrNoSubscription // nothing to manage yet: the portal is for subscribers
	}
	_, customer, err := s.boundCustomer(ctx, a)
	if err != nil {
		return "", err
	}
	ids := []string{}
	for _, sub := range subs {
		if sub.PaddleCustomerID == customer && !sub.CustomerMismatch {
			ids = append(ids, sub.PaddleSubscriptionID)
		}
	}
	url, err := s.api.PortalURL(ctx, customer, ids)
	if err != nil {
		return "", fmt.Errorf("portal session: %w", err)
	}
	return url, nil
}
