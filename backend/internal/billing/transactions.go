package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Transaction origins (Paddle's vocabulary). A web checkout's first month is granted by
// subscription.created; a renewal grants its period's first month, an update's payment its top-up.
const (
	originRecurring = "subscription_recurring"
	originUpdate    = "subscription_update"
	originWeb       = "web"
)

// paysAPeriod reports whether a completed transaction actually pays for the subscription: a renewal, or an
// update or web checkout that charged something. Paddle also completes zero-value transactions, e.g. one
// per card update (origin subscription_payment_method_change); those pay nothing, so they must neither lift
// a refund's revocation nor become the transaction a later refund is compared with.
func paysAPeriod(t transactionData) bool {
	switch t.Origin {
	case originRecurring:
		return true
	case originUpdate, originWeb:
		return t.total() > 0
	}
	return false
}

// onTransactionCompleted grants what a completed payment paid for, and remembers which transaction paid
// the current period (for refunds):
//   - a renewal (origin subscription_recurring): month 0 of its billing period, topped up to the full
//     allowance of the transaction's plan and seats; keyed like the snapshots' and the job's grants, so
//     whichever comes first grants and the others do nothing;
//   - an upgrade's or a seat change's payment (origin subscription_update, total above zero): the month's
//     top-up to the new allowance, prorated by the time left in the month (upgradePaid);
//   - a one-time purchase without a subscription: the credit packs among its items (onPackPurchase).
func (s *Service) onTransactionCompleted(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	var t transactionData
	env, err := decode(ev.Payload, &t)
	if err != nil {
		return err
	}
	if t.SubscriptionID == nil || *t.SubscriptionID == "" {
		return s.onPackPurchase(ctx, tx, ev, env, t)
	}
	subID := *t.SubscriptionID
	if paysAPeriod(t) {
		if err := s.recordPayingTransaction(ctx, tx, subID, t); err != nil {
			return err
		}
	}
	var g monthGrant
	switch {
	case t.Origin == originRecurring && t.BillingPeriod != nil:
		g = monthGrant{period: *t.BillingPeriod, month: 0, mode: renewal}
	case t.Origin == originUpdate && t.total() > 0:
		g = monthGrant{mode: upgradePaid, txnID: t.ID, paidAt: env.OccurredAt}
	default:
		userID, _, err := userOfSubscription(ctx, tx, subID)
		if err != nil {
			return err
		}
		return s.auditTransaction(ctx, tx, ev, t, nilIfZero(userID), 0)
	}
	if err := validItems(t.Items); err != nil {
		return err
	}
	plan, err := s.tiers.planOf(t.Items)
	if err != nil {
		return err
	}
	customer := ""
	if t.CustomerID != nil {
		customer = *t.CustomerID
	}
	if g.userID, err = s.resolveUser(ctx, tx, subID, customer, t.CustomData, plan.item.Price.ID, env.OccurredAt); err != nil {
		return err
	}
	g.subID, g.tier, g.quantity = subID, plan.tier, plan.quantity
	if g.mode == upgradePaid {
		// An upgrade's payment covers the rest of the subscription's current period: the month it falls in
		// is the row's (the transaction's own billing_period is the prorated stretch, not a grant month).
		row, err := lockPeriod(ctx, tx, subID)
		if err != nil || row.revoked || row.period == nil || !env.OccurredAt.Before(row.period.EndsAt) {
			if err == nil {
				err = s.auditTransaction(ctx, tx, ev, t, &g.userID, 0)
			}
			return err
		}
		g.period, g.month = *row.period, monthIndex(row.period.StartsAt, env.OccurredAt)
	} else if err := lockSubscription(ctx, tx, subID); err != nil {
		return err
	}
	granted, err := s.grantMonth(ctx, tx, g)
	if err != nil {
		return err
	}
	return s.auditTransaction(ctx, tx, ev, t, &g.userID, granted)
}

// lockedPeriod is a subscription row's current period, read under its lock.
type lockedPeriod struct {
	period  *period
	revoked bool
}

// lockPeriod takes the subscription row's lock (as lockSubscription) and reads its current period.
func lockPeriod(ctx context.Context, tx *gorm.DB, subID string) (lockedPeriod, error) {
	var rows []struct {
		CurrentPeriodStart, CurrentPeriodEnd *time.Time
		Revoked                              bool
	}
	if err := tx.WithContext(ctx).Raw(`SELECT current_period_start, current_period_end, access_revoked_at IS NOT NULL AS revoked
		FROM subscriptions WHERE paddle_subscription_id = ? FOR UPDATE`, subID).Scan(&rows).Error; err != nil {
		return lockedPeriod{}, fmt.Errorf("lock subscription: %w", err)
	}
	if len(rows) == 0 {
		return lockedPeriod{}, fmt.Errorf("%w: %s", errSubscriptionNotYetKnown, subID)
	}
	out := lockedPeriod{revoked: rows[0].Revoked}
	if r := rows[0]; r.CurrentPeriodStart != nil && r.CurrentPeriodEnd != nil {
		out.period = &period{StartsAt: *r.CurrentPeriodStart, EndsAt: *r.CurrentPeriodEnd}
	}
	return out, nil
}

// errSubscriptionNotYetKnown fails a renewal that arrives before its subscription.created: its grant must
// serialise on the subscription row. Paddle's retry comes after the row exists.
var errSubscriptionNotYetKnown = errors.New("renewal of a subscription not known yet")

// lockSubscription takes the subscription row's lock for the rest of the transaction: the lock every
// event of one subscription (and the monthly-grants job) takes before it reads and tops up a month.
func lockSubscription(ctx context.Context, tx *gorm.DB, subID string) error {
	res := tx.WithContext(ctx).Exec(`SELECT 1 FROM subscriptions WHERE paddle_subscription_id = ? FOR UPDATE`, subID)
	if res.Error != nil {
		return fmt.Errorf("lock subscription: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("%w: %s", errSubscriptionNotYetKnown, subID)
	}
	return nil
}

// recordPayingTransaction stores the transaction that paid the subscription's current period (for refunds);
// only transactions that pay (paysAPeriod) come here. A different one paying the current or a later period
// lifts a refund's revocation and restores the tier. Transactions for earlier periods are ignored.
func (s *Service) recordPayingTransaction(ctx context.Context, tx *gorm.DB, subID string, t transactionData) error {
	var rows []struct {
		UserID             uuid.UUID
		Tier               string
		Status             string
		CurrentPeriodStart *time.Time
		LastTransactionID  *string
		AccessRevokedAt    *time.Time
	}
	if err := tx.WithContext(ctx).Raw(`SELECT user_id, tier, status, current_period_start, last_transaction_id, access_revoked_at
		FROM subscriptions WHERE paddle_subscription_id = ? FOR UPDATE`, subID).Scan(&rows).Error; err != nil {
		return fmt.Errorf("record transaction: %w", err)
	}
	if len(rows) == 0 {
		return nil // subscription.created has not arrived yet; it carries its transaction_id itself
	}
	row := rows[0]
	if t.BillingPeriod != nil && row.CurrentPeriodStart != nil && t.BillingPeriod.StartsAt.Before(*row.CurrentPeriodStart) {
		return nil
	}
	newPayer := row.LastTransactionID == nil || *row.LastTransactionID != t.ID
	if err := tx.WithContext(ctx).Exec(`UPDATE subscriptions SET last_transaction_id = ?,
		access_revoked_at = CASE WHEN ? THEN NULL ELSE access_revoked_at END, updated_at = now()
		WHERE paddle_subscription_id = ?`, t.ID, newPayer, subID).Error; err != nil {
		return fmt.Errorf("record transaction: %w", err)
	}
	if row.AccessRevokedAt != nil && newPayer && row.Status != "canceled" {
		return s.setTier(ctx, tx, row.UserID, subID, row.Tier)
	}
	return nil
}

func (s *Service) auditTransaction(ctx context.Context, tx *gorm.DB, ev webhook.Event, t transactionData, userID *uuid.UUID, granted int) error {
	sub := ""
	if t.SubscriptionID != nil {
		sub = *t.SubscriptionID
	}
	return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorPaddle, Action: ev.Type, UserID: userID,
		ResourceType: "transaction", ResourceID: t.ID,
		Details: map[string]any{"event_id": ev.ID, "origin": t.Origin, "paddle_subscription_id": sub, "credits_granted": granted}})
}

// onAdjustment audits refunds and chargebacks. An approved full refund (or chargeback) of the transaction
// that paid the current period revokes access at once: the user drops to free and stays there until a
// new period is paid, whatever later subscription snapshots say, and what is left of the subscription's
// allowance is written off when its tier has a rollover rule (credits already spent stay spent). An
// approved refund or chargeback of a credit pack's transaction writes off what is unspent of the pack.
// Pending adjustments wait for Paddle's approval.
func (s *Service) onAdjustment(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	var a adjustmentData
	if _, err := decode(ev.Payload, &a); err != nil {
		return err
	}
	var userID *uuid.UUID
	revoked, written := false, 0
	refunded := a.Status == "approved" && (a.Action == "refund" || a.Action == "chargeback")
	if a.SubscriptionID != nil && *a.SubscriptionID != "" {
		var rows []struct {
			UserID            uuid.UUID
			Tier              string
			LastTransactionID *string
		}
		if err := tx.WithContext(ctx).Raw(`SELECT user_id, tier, last_transaction_id FROM subscriptions
			WHERE paddle_subscription_id = ?`, *a.SubscriptionID).Scan(&rows).Error; err != nil {
			return fmt.Errorf("adjustment: %w", err)
		}
		if len(rows) == 1 {
			userID = &rows[0].UserID
			current := rows[0].LastTransactionID != nil && *rows[0].LastTransactionID == a.TransactionID
			if current && refunded && a.Type == "full" {
				if err := s.revokeAccess(ctx, tx, rows[0].UserID, *a.SubscriptionID, rows[0].Tier); err != nil {
					return err
				}
				revoked = true
			}
		}
	} else if refunded {
		var err error
		if userID, written, err = s.refundPack(ctx, tx, a.TransactionID); err != nil {
			return err
		}
	}
	details := map[string]any{"event_id": ev.ID, "action": a.Action, "status": a.Status, "type": a.Type,
		"transaction_id": a.TransactionID, "access_revoked": revoked}
	if written > 0 {
		details["credits_written_off"] = written
	}
	return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorPaddle, Action: ev.Type, UserID: userID,
		ResourceType: "adjustment", ResourceID: a.ID, Details: details})
}

func (s *Service) revokeAccess(ctx context.Context, tx *gorm.DB, userID uuid.UUID, subID, tier string) error {
	if err := tx.WithContext(ctx).Exec(`UPDATE subscriptions SET access_revoked_at = now(), updated_at = now()
		WHERE paddle_subscription_id = ?`, subID).Error; err != nil {
		return fmt.Errorf("revoke access: %w", err)
	}
	if err := s.endAllowance(ctx, tx, userID, subID, tier, "subscription period refunded"); err != nil {
		return err
	}
	return s.setTier(ctx, tx, userID, subID, s.tiers.Free().Name)
}

func nilIfZero(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}
