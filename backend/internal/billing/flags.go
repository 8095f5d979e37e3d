package billing

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Subscriptions that money was taken for but that need a person: recorded like any other (the customer
// paid), flagged, audited once, shown to operators. Never rejected: rejecting would fail the delivery on
// every retry, and the user would be charged while we never record it.

// ActionCustomerMismatch is audited once per subscription whose Paddle customer is not its user's bound one.
const ActionCustomerMismatch = "subscription.customer_mismatch"

// checkCustomer flags a subscription whose customer is not the one our API bound to its user: someone
// completed a checkout signed for this user under another person's email, and Paddle reused that person's
// customer. The subscription is still recorded (money was taken) and keeps its tier, but it is flagged,
// audited once, visible to operators, and never offered in this user's portal. A user with no binding yet
// (bound by their first checkout or portal visit) flags nothing: there is nothing to compare with.
func (s *Service) checkCustomer(ctx context.Context, tx *gorm.DB, ev webhook.Event, r synced) error {
	bound, err := account.PaddleCustomerTx(ctx, tx, r.userID)
	if err != nil || bound == "" || bound == r.sub.CustomerID {
		return err
	}
	if first, err := flagOnce(ctx, tx, r.sub.ID, flagCustomerMismatch); err != nil || !first {
		return err // !first: flagged by an earlier event
	}
	return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorPaddle, Action: ActionCustomerMismatch, UserID: &r.userID,
		ResourceType: "subscription", ResourceID: r.sub.ID, Details: map[string]any{"event_id": ev.ID,
			"paddle_customer_id": r.sub.CustomerID, "bound_customer_id": bound}})
}

// ActionDuplicate is audited once per subscription that went live while its user already had one.
const ActionDuplicate = "subscription.duplicate"

// checkDuplicate flags a subscription that is live while another of its user's is live too: two tabs, two
// checkouts, two charges. The one-live-per-user unique index used to reject it on every retry (charged,
// never recorded); now it is recorded, flagged duplicate_subscription, audited and the operators are
// mailed (once, with the flag), so they can cancel and refund one in Paddle (docs/billing.md).
func (s *Service) checkDuplicate(ctx context.Context, tx *gorm.DB, ev webhook.Event, r synced) error {
	if !IsLive(r.sub.Status) {
		return nil
	}
	other, err := otherLiveSubscriptionID(ctx, tx, r.userID, r.sub.ID)
	if err != nil || other == "" {
		return err
	}
	if first, err := flagOnce(ctx, tx, r.sub.ID, flagDuplicate); err != nil || !first {
		return err // !first: flagged by an earlier event
	}
	if err := audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorPaddle, Action: ActionDuplicate, UserID: &r.userID,
		ResourceType: "subscription", ResourceID: r.sub.ID,
		Details: map[string]any{"event_id": ev.ID, "other_subscription_id": other}}); err != nil {
		return err
	}
	return s.alertOperators(ctx, tx, "duplicate_subscription/"+r.sub.ID, email.OpsAlertData{
		Title: "a user pays for two subscriptions",
		Body:  "A second subscription went live for a user who already had a live one (two checkouts at once).",
		Facts: []email.Fact{{Name: "user", Value: r.userID.String()}, {Name: "new subscription", Value: r.sub.ID},
			{Name: "existing subscription", Value: other}},
		Action: "in Paddle, cancel one of the two subscriptions and refund its transaction; the user keeps the tier of the other.",
	})
}

// otherLiveSubscriptionID returns the Paddle id of another subscription of the user that grants access, if
// there is one.
func otherLiveSubscriptionID(ctx context.Context, tx *gorm.DB, userID uuid.UUID, exceptSub string) (string, error) {
	var ids []string
	if err := tx.WithContext(ctx).Raw(`SELECT paddle_subscription_id FROM subscriptions WHERE user_id = ?
		AND paddle_subscription_id <> ? AND status IN ? AND access_revoked_at IS NULL ORDER BY created_at LIMIT 1`,
		userID, exceptSub, LiveStatuses).Scan(&ids).Error; err != nil {
		return "", fmt.Errorf("find other live subscriptions: %w", err)
	}
	if len(ids) == 0 {
		return "", nil
	}
	return ids[0], nil
}

// alertOperators mails every ADMIN_EMAILS address, through the delivery's transaction (once with it), keyed
// so a replay never mails twice.
func (s *Service) alertOperators(ctx context.Context, tx *gorm.DB, key string, d email.OpsAlertData) error {
	d.AppName = s.cfg.AppName
	for _, to := range s.cfg.AlertEmails {
		if err := s.mailer.EnqueueEmailTx(ctx, tx, email.TemplateOpsAlert, to, key+"/"+to, d); err != nil {
			return err
		}
	}
	return nil
}

// The subscriptions' flag columns flagOnce sets.
const (
	flagCustomerMismatch = "customer_mismatch"
	flagDuplicate        = "duplicate_subscription"
)

// flagOnce sets the subscription's flag column and reports whether this call set it: the flag, its audit
// row and any alert happen once per subscription however many events show the problem.
func flagOnce(ctx context.Context, tx *gorm.DB, subID, flag string) (bool, error) {
	var flagged []uuid.UUID
	if err := tx.WithContext(ctx).Raw(`UPDATE subscriptions SET `+flag+` = true, updated_at = now()
		WHERE paddle_subscription_id = ? AND NOT `+flag+` RETURNING id`, subID).Scan(&flagged).Error; err != nil {
		return false, fmt.Errorf("flag %s: %w", flag, err)
	}
	return len(flagged) == 1, nil
}
