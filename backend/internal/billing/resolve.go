package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// ErrUnresolvableUser means a Paddle event names no user we can trust: no valid checkout signature and no
// known customer. It fails the delivery (Paddle retries; a late subscription.created may make it resolvable).
var ErrUnresolvableUser = errors.New("cannot resolve the user of this paddle event")

// resolveUser finds the user a Paddle entity belongs to, in order of trust:
//  1. an existing subscription row for subscriptionID (bound earlier);
//  2. a checkout signature in custom_data, which proves who checked out, not the plan (the plan is the
//     snapshot's items, whatever price the checkout began with: a plan change delivered before the
//     subscription's creation binds like the creation) — present but invalid is a hard reject, never a
//     fall-through;
//     a signed user we have not seen yet (their Clerk webhook is still retrying) is created from the signed data,
//     unless they were erased (account.ErrErased fails the delivery: it is a replay from before the erasure);
//  3. a Paddle customer id bound to a user by our own API call (users.paddle_customer_id) — never "the first
//     user ever stored with this customer id", which a payload could have handed us.
func (s *Service) resolveUser(ctx context.Context, tx *gorm.DB, subscriptionID, customerID string, cd *customData, priceID string, at time.Time) (uuid.UUID, error) {
	if subscriptionID != "" {
		if id, ok, err := userOfSubscription(ctx, tx, subscriptionID); err != nil || ok {
			return id, err
		}
	}
	if cd != nil && cd.CheckoutSig != "" {
		issued, err := s.signer.VerifyMAC(cd.CheckoutSig, cd.ClerkUserID, cd.Email, s.legacyPrices(priceID)...)
		if err != nil {
			// A forged or tampered signature never becomes valid: permanent (archived failed, audited).
			return uuid.Nil, webhook.Permanent(fmt.Errorf("%w (clerk_user_id %q)", err, cd.ClerkUserID))
		}
		// A genuine MAC binds an existing user whatever its age: the checkout completed (money was taken)
		// and Paddle may deliver it days late. The 6-hour window guards only what the signature alone would
		// create: a user we have never seen.
		if id, ok, err := account.UserIDByClerkIDTx(ctx, tx, cd.ClerkUserID); err != nil || ok {
			return id, err
		}
		if !Fresh(issued, at) {
			return uuid.Nil, fmt.Errorf("%w (clerk_user_id %q, signed %s)", ErrCheckoutExpired, cd.ClerkUserID, issued.UTC().Format(time.RFC3339))
		}
		// Checkout signs only the user's verified address (Checkout refuses to sign without one), so a valid
		// signature vouches for it like Clerk does.
		u, err := account.EnsureUserTx(ctx, tx, s.erased, cd.ClerkUserID, cd.Email, true)
		return u.ID, err
	}
	if customerID != "" {
		if id, ok, err := account.UserByPaddleCustomerTx(ctx, tx, customerID); err != nil || ok {
			return id, err
		}
	}
	return uuid.Nil, fmt.Errorf("%w (subscription %q, customer %q)", ErrUnresolvableUser, subscriptionID, customerID)
}

func userOfSubscription(ctx context.Context, tx *gorm.DB, subscriptionID string) (uuid.UUID, bool, error) {
	var ids []uuid.UUID
	if err := tx.WithContext(ctx).Raw(`SELECT user_id FROM subscriptions WHERE paddle_subscription_id = ?`,
		subscriptionID).Scan(&ids).Error; err != nil {
		return uuid.Nil, false, fmt.Errorf("find subscription: %w", err)
	}
	if len(ids) == 0 {
		return uuid.Nil, false, nil
	}
	return ids[0], true, nil
}

// legacyPrices are the prices a v1 checkout signature (which bound the price too) may have been issued for:
// the event's plan price first (the common case, one HMAC), then every price of the tiers file, so a plan
// changed before the subscription's creation was delivered still binds its user.
func (s *Service) legacyPrices(planPrice string) []string {
	out := []string{planPrice}
	for _, t := range s.tiers.List() {
		for _, p := range t.PaddlePriceIDs {
			if p != planPrice {
				out = append(out, p)
			}
		}
	}
	return out
}
