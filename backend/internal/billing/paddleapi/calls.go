package paddleapi

import (
	"context"
	"fmt"
	"maps"
	"slices"

	paddle "github.com/PaddleHQ/paddle-go-sdk/v4"
)

// CancelSubscription asks Paddle to cancel subscriptionID: at the end of the
// current billing period (a scheduled change; the subscription stays active
// until then) unless immediately is true.
func (c *Client) CancelSubscription(ctx context.Context, subscriptionID string, immediately bool) error {
	from := paddle.EffectiveFromNextBillingPeriod
	if immediately {
		from = paddle.EffectiveFromImmediately
	}
	return c.act(ctx, "cancel subscription", func(ctx context.Context) error {
		_, err := c.sdk.CancelSubscription(ctx, &paddle.CancelSubscriptionRequest{
			SubscriptionID: subscriptionID,
			EffectiveFrom:  &from,
		})
		return err
	})
}

// ChangeItems replaces the subscription's recurring items with items (price id -> quantity). Paddle's
// items is the full new list, not a delta: an item left out is removed, so the caller sends the add-ons it
// keeps with the new plan. An upgrade is billed now, prorated (prorated_immediately), and Paddle keeps the
// old items if that payment fails (on_payment_failure: prevent_change), so a higher tier is never held
// unpaid; anything else is changed without a charge or a credit (do_not_bill).
func (c *Client) ChangeItems(ctx context.Context, subscriptionID string, items map[string]int, upgrade bool) error {
	prices := slices.Sorted(maps.Keys(items)) // a stable request body
	list := make([]paddle.UpdateSubscriptionItems, 0, len(prices))
	for _, p := range prices {
		list = append(list, *paddle.NewUpdateSubscriptionItemsSubscriptionUpdateItemFromCatalog(
			&paddle.SubscriptionUpdateItemFromCatalog{PriceID: p, Quantity: items[p]}))
	}
	return c.act(ctx, "change items", func(ctx context.Context) error {
		// Proration is mandatory when items change.
		req := &paddle.UpdateSubscriptionRequest{SubscriptionID: subscriptionID, Items: paddle.NewPatchField(list),
			ProrationBillingMode: paddle.NewPatchField(paddle.ProrationBillingModeDoNotBill)}
		if upgrade {
			req.ProrationBillingMode = paddle.NewPatchField(paddle.ProrationBillingModeProratedImmediately)
			req.OnPaymentFailure = paddle.NewPatchField(paddle.SubscriptionOnPaymentFailurePreventChange)
		}
		_, err := c.sdk.UpdateSubscription(ctx, req)
		return err
	})
}

// ResumeSubscription resumes a paused subscription immediately.
func (c *Client) ResumeSubscription(ctx context.Context, subscriptionID string) error {
	from := paddle.EffectiveFromImmediately
	return c.act(ctx, "resume subscription", func(ctx context.Context) error {
		_, err := c.sdk.ResumeSubscription(ctx, paddle.NewResumeSubscriptionRequestResumeImmediately(
			subscriptionID, &paddle.ResumeImmediately{EffectiveFrom: &from}))
		return err
	})
}

// RemoveScheduledChange clears a scheduled change (PATCH scheduled_change:
// null), e.g. when a user who scheduled a cancel changes their mind.
func (c *Client) RemoveScheduledChange(ctx context.Context, subscriptionID string) error {
	return c.act(ctx, "remove scheduled change", func(ctx context.Context) error {
		_, err := c.sdk.UpdateSubscription(ctx, &paddle.UpdateSubscriptionRequest{
			SubscriptionID:  subscriptionID,
			ScheduledChange: paddle.NewNullPatchField[*paddle.SubscriptionScheduledChange](),
		})
		return err
	})
}

// PortalURL creates a customer portal session for customerID (with deep
// links for subscriptionIDs, which may be empty) and returns its general
// overview URL. Never store or cache it: it carries a temporary token.
func (c *Client) PortalURL(ctx context.Context, customerID string, subscriptionIDs []string) (string, error) {
	const op = "create portal session"
	ctx, a := withAttempts(ctx)
	res, err := c.sdk.CreateCustomerPortalSession(ctx, &paddle.CreateCustomerPortalSessionRequest{
		CustomerID:      customerID,
		SubscriptionIDs: subscriptionIDs,
	})
	if err != nil {
		return "", c.translate(ctx, op, a, err)
	}
	if res == nil || res.URLs.General.Overview == "" {
		return "", fmt.Errorf("%s: paddle response has no overview url", op)
	}
	return res.URLs.General.Overview, nil
}

// act runs one SDK call whose response we do not need and translates its error.
func (c *Client) act(ctx context.Context, op string, call func(context.Context) error) error {
	ctx, a := withAttempts(ctx)
	err := call(ctx)
	if err != nil && a.status >= 200 && a.status < 300 {
		// Paddle accepted the action; only decoding the entity failed. We never
		// use it (webhooks carry the new state), so this is a success.
		return nil
	}
	return c.translate(ctx, op, a, err)
}
