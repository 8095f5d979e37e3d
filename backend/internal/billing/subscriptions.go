package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// synced is the outcome of applying one subscription snapshot.
type synced struct {
	env     envelope
	sub     subscriptionData
	plan    plan
	tier    Tier
	userID  uuid.UUID
	applied bool // false: a newer snapshot was already applied; the delivery is still recorded
}

// onSubscriptionChanged applies the snapshot (status, period, items, tier, scheduled change), grants the
// month it happened in if that month has no grant yet, and audits. activated, resumed, trialing, updated,
// paused and past_due all reduce to this: past_due keeps the tier (access continues through dunning),
// paused drops to free until resumed, a scheduled cancel arrives as updated + scheduled_change. Only an
// active snapshot grants, and only a month without any grant (a yearly plan's month the job has not
// reached): an upgrade or more seats are topped up when their payment completes, never on a snapshot.
func (s *Service) onSubscriptionChanged(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	_, err := s.applyChange(ctx, tx, ev)
	return err
}

// applyChange syncs the snapshot, tops up its month and audits: the whole of onSubscriptionChanged, which
// past_due extends.
func (s *Service) applyChange(ctx context.Context, tx *gorm.DB, ev webhook.Event) (synced, error) {
	r, err := s.sync(ctx, tx, ev)
	if err != nil {
		return synced{}, err
	}
	granted, err := s.grantCurrentMonth(ctx, tx, r)
	if err != nil {
		return synced{}, err
	}
	return r, s.auditSubscription(ctx, tx, ev, r, map[string]any{"credits_granted": granted})
}

// onSubscriptionPastDue is onSubscriptionChanged (dunning keeps the tier) plus the "payment failed" email,
// keyed per event (payment_failed/<sub>/<event id>): each failed renewal Paddle reports mails once, however
// often the event is redelivered, and a late past_due under a newer snapshot (applied false) mails nothing.
func (s *Service) onSubscriptionPastDue(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	r, err := s.applyChange(ctx, tx, ev)
	if err != nil {
		return err
	}
	if !r.applied {
		return nil
	}
	return s.email(ctx, tx, r.userID, email.TemplatePaymentFailed, "payment_failed/"+r.sub.ID+"/"+ev.ID,
		func(addr string) any {
			return email.PaymentFailedData{Email: addr, AppName: s.cfg.AppName, Tier: r.tier.Name, ManageURL: s.cfg.ManageURL}
		})
}

// onSubscriptionCreated syncs, grants the current month's credits (active subscriptions only: a trial's
// first paid period is granted by its transaction.completed), and sends the welcome-to-paid email.
func (s *Service) onSubscriptionCreated(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	r, err := s.sync(ctx, tx, ev)
	if err != nil {
		return err
	}
	granted, err := s.grantCurrentMonth(ctx, tx, r)
	if err != nil {
		return err
	}
	if err := s.auditSubscription(ctx, tx, ev, r, map[string]any{"credits_granted": granted}); err != nil {
		return err
	}
	var periodEnd time.Time
	if p := r.sub.CurrentBillingPeriod; p != nil {
		periodEnd = p.EndsAt
	}
	return s.email(ctx, tx, r.userID, email.TemplateSubscriptionStarted, "subscription_started/"+r.sub.ID,
		func(addr string) any {
			return email.SubscriptionStartedData{Email: addr, AppName: s.cfg.AppName, Tier: r.tier.Name,
				PeriodEnd: periodEnd, Credits: granted}
		})
}

// onSubscriptionCanceled records the cancellation. The user keeps the tier until current_period_end; the
// expiry job downgrades then, or this handler at once when the period is already over.
func (s *Service) onSubscriptionCanceled(ctx context.Context, tx *gorm.DB, ev webhook.Event) error {
	r, err := s.sync(ctx, tx, ev)
	if err != nil {
		return err
	}
	if err := s.auditSubscription(ctx, tx, ev, r, nil); err != nil {
		return err
	}
	var until time.Time
	if p := r.sub.CurrentBillingPeriod; p != nil {
		until = p.EndsAt
	}
	return s.email(ctx, tx, r.userID, email.TemplateSubscriptionCanceled, "subscription_canceled/"+r.sub.ID,
		func(addr string) any {
			return email.SubscriptionCanceledData{Email: addr, AppName: s.cfg.AppName, Tier: r.tier.Name, AccessUntil: until}
		})
}

// sync parses a subscription snapshot, finds its plan item, resolves its user, upserts it (with its
// items) if newer than the stored one, and keeps the user's tier in step.
func (s *Service) sync(ctx context.Context, tx *gorm.DB, ev webhook.Event) (synced, error) {
	var r synced
	var err error
	if r.env, err = decode(ev.Payload, &r.sub); err != nil {
		return r, err
	}
	if err := r.sub.validate(); err != nil {
		return r, err
	}
	if r.plan, err = s.tiers.planOf(r.sub.Items); err != nil {
		return r, err
	}
	r.tier = r.plan.tier
	// The checkout signed the plan's price, wherever it sits among the items.
	if r.userID, err = s.resolveUser(ctx, tx, r.sub.ID, r.sub.CustomerID, r.sub.CustomData, r.plan.item.Price.ID, r.env.OccurredAt); err != nil {
		return r, err
	}
	var rowID uuid.UUID
	if rowID, r.applied, err = upsertSubscription(ctx, tx, r); err != nil {
		return r, err
	}
	if !r.applied && r.sub.TransactionID != "" {
		if err := keepCheckoutTransaction(ctx, tx, r.sub.ID, r.sub.TransactionID); err != nil {
			return r, err
		}
	}
	if r.applied {
		if err := replaceItems(ctx, tx, rowID, itemRows(rowID, r.sub.Items, r.plan.index, r.sub.CurrencyCode)); err != nil {
			return r, err
		}
	}
	if err := s.checkCustomer(ctx, tx, ev, r); err != nil {
		return r, err
	}
	if err := s.checkDuplicate(ctx, tx, ev, r); err != nil {
		return r, err
	}
	if r.applied {
		err = s.syncTier(ctx, tx, r)
	}
	return r, err
}

// upsertSubscription writes the snapshot unless the stored one is newer, and returns the row id when it
// did. Ordering is by (occurred_at, event_id): deterministic, so created and activated with the same
// occurred_at end in the same state in either order. ON CONFLICT makes concurrent first deliveries converge
// on one row with no unique violation: the second waits for the first and takes the update path. Either
// way the statement leaves the row locked until commit (Postgres locks the conflicting row even when the
// WHERE rejects the update), which is what serialises every event of one subscription.
func upsertSubscription(ctx context.Context, tx *gorm.DB, r synced) (uuid.UUID, bool, error) {
	sub := r.sub
	var start, end *time.Time
	if p := sub.CurrentBillingPeriod; p != nil {
		start, end = &p.StartsAt, &p.EndsAt
	}
	var txnID *string
	if sub.TransactionID != "" {
		txnID = &sub.TransactionID
	}
	var ids []uuid.UUID
	err := tx.WithContext(ctx).Raw(`INSERT INTO subscriptions
		(user_id, paddle_subscription_id, paddle_customer_id, paddle_price_id, tier, status,
		 current_period_start, current_period_end, canceled_at, scheduled_change, last_event_at, last_event_id,
		 last_transaction_id, quantity, currency_code, discount, next_grant_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?, ?, ?, ?, ?, CAST(? AS jsonb), ?)
		ON CONFLICT ON CONSTRAINT uq_subscriptions_paddle_subscription_id DO UPDATE SET
		  paddle_customer_id = EXCLUDED.paddle_customer_id, paddle_price_id = EXCLUDED.paddle_price_id,
		  tier = EXCLUDED.tier, status = EXCLUDED.status,
		  current_period_start = EXCLUDED.current_period_start, current_period_end = EXCLUDED.current_period_end,
		  canceled_at = EXCLUDED.canceled_at, scheduled_change = EXCLUDED.scheduled_change,
		  last_event_at = EXCLUDED.last_event_at, last_event_id = EXCLUDED.last_event_id,
		  last_transaction_id = coalesce(EXCLUDED.last_transaction_id, subscriptions.last_transaction_id),
		  quantity = EXCLUDED.quantity, currency_code = EXCLUDED.currency_code, discount = EXCLUDED.discount,
		  next_grant_at = CASE
		    -- The job finishes a canceled period only if it saw the period granting (not a trial, not dunning).
		    WHEN EXCLUDED.status = 'canceled' AND subscriptions.status NOT IN ? THEN NULL
		    -- Same period: the job goes on from where it was (a pause or dunning in between only holds it).
		    WHEN EXCLUDED.current_period_start IS NOT DISTINCT FROM subscriptions.current_period_start
		      THEN subscriptions.next_grant_at
		    ELSE EXCLUDED.next_grant_at END,
		  updated_at = now()
		WHERE (subscriptions.last_event_at, subscriptions.last_event_id) < (EXCLUDED.last_event_at, EXCLUDED.last_event_id)
		RETURNING id`,
		r.userID, sub.ID, sub.CustomerID, r.plan.item.Price.ID, r.tier.Name, sub.Status,
		start, end, sub.CanceledAt, rawOrNil(sub.ScheduledChange), r.env.OccurredAt, r.env.EventID, txnID,
		r.plan.quantity, fits(sub.CurrencyCode, 3), rawOrNil(sub.Discount), jobFrom(sub), grantStatuses).Scan(&ids).Error
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("upsert subscription %s: %w", sub.ID, err)
	}
	if len(ids) == 0 {
		return uuid.Nil, false, nil
	}
	return ids[0], true, nil
}

// keepCheckoutTransaction records the transaction a stale subscription.created names (the checkout's) as
// the one that paid the period, when none is recorded yet. Paddle sends the checkout's
// transaction.completed, subscription.created and .activated at once, in any order: when the transaction
// came before any row existed (it then relies on created to carry its id) and .activated was applied
// before created, the stale created is the only place left that says which transaction paid, and a full
// refund of it must still revoke (found by `fabrica simulate --chaos`: the refund changed nothing).
func keepCheckoutTransaction(ctx context.Context, tx *gorm.DB, subID, txnID string) error {
	if err := tx.WithContext(ctx).Exec(`UPDATE subscriptions SET last_transaction_id = ?, updated_at = now()
		WHERE paddle_subscription_id = ? AND last_transaction_id IS NULL`, txnID, subID).Error; err != nil {
		return fmt.Errorf("record the checkout's transaction: %w", err)
	}
	return nil
}

// rawOrNil is a JSON value for a jsonb column, NULL for an absent or null one.
func rawOrNil(v []byte) *string {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	s := string(v)
	return &s
}

// syncTier sets the user's tier from the subscription just applied: its tier while it grants access, free
// while it is paused, once a canceled subscription's period is over, or once its period was refunded in
// full. When the subscription stops granting its tier, what is left of its allowance ends with it
// (endAllowance).
func (s *Service) syncTier(ctx context.Context, tx *gorm.DB, r synced) error {
	free, tier := s.tiers.Free().Name, r.tier.Name
	switch r.sub.Status {
	case "canceled":
		if p := r.sub.CurrentBillingPeriod; p != nil && p.EndsAt.After(s.now()) {
			return nil // access continues until period end; the expiry job downgrades then
		}
		tier = free
	case "paused":
		tier = free // a paused subscription is not paid for: free until subscription.resumed
	}
	revoked, err := accessRevoked(ctx, tx, r.sub.ID)
	if err != nil {
		return fmt.Errorf("sync tier: %w", err)
	}
	if revoked {
		tier = free
	}
	if tier == free {
		if err := s.endAllowance(ctx, tx, r.userID, r.sub.ID, r.tier.Name, "subscription "+r.sub.Status); err != nil {
			return err
		}
	}
	return s.setTier(ctx, tx, r.userID, r.sub.ID, tier)
}

// setTier writes the user's tier through its owner: tier (what exceptSub now grants, free when nothing),
// or the highest tier the user's other live subscriptions grant, if higher. So a subscription that stops
// granting hands the user to the one still paid for (two checkouts: canceling the newer one leaves the
// older one's tier, not the canceled one's), and free comes only when none is left.
func (s *Service) setTier(ctx context.Context, tx *gorm.DB, userID uuid.UUID, exceptSub, tier string) error {
	other, err := s.otherLiveTier(ctx, tx, userID, exceptSub)
	if err != nil {
		return err
	}
	if t, ok := s.tiers.ByName(tier); other.Name != "" && (!ok || other.Rank > t.Rank) {
		tier = other.Name
	}
	_, err = account.SetTierTx(ctx, tx, userID, tier)
	return err
}

// otherLiveTier is the highest tier the user's subscriptions besides exceptSub grant (AccessStatuses, not
// revoked); the zero Tier when none does.
func (s *Service) otherLiveTier(ctx context.Context, tx *gorm.DB, userID uuid.UUID, exceptSub string) (Tier, error) {
	var tiers []string
	err := tx.WithContext(ctx).Raw(`SELECT tier FROM subscriptions WHERE user_id = ?
		AND paddle_subscription_id <> ? AND status IN ? AND access_revoked_at IS NULL`,
		userID, exceptSub, AccessStatuses).Scan(&tiers).Error
	if err != nil {
		return Tier{}, fmt.Errorf("find other live subscriptions: %w", err)
	}
	var best Tier
	for _, name := range tiers {
		if t, ok := s.tiers.ByName(name); ok && (best.Name == "" || t.Rank > best.Rank) {
			best = t
		}
	}
	return best, nil
}

func (s *Service) auditSubscription(ctx context.Context, tx *gorm.DB, ev webhook.Event, r synced, extra map[string]any) error {
	details := map[string]any{
		"event_id": ev.ID, "paddle_subscription_id": r.sub.ID, "status": r.sub.Status,
		"tier": r.tier.Name, "quantity": r.plan.quantity, "applied": r.applied,
	}
	if len(r.plan.others) > 0 {
		// Items of two tiers in one subscription: the higher tier decided; the operator should look.
		details["other_tiered_prices"] = r.plan.others
		details["tier_rule"] = "highest tier in the tiers file"
	}
	for k, v := range extra {
		details[k] = v
	}
	return audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorPaddle, Action: ev.Type, UserID: &r.userID,
		ResourceType: "subscription", ResourceID: r.sub.ID, Details: details})
}

// email enqueues a transactional email to the user, if we know their address.
func (s *Service) email(ctx context.Context, tx *gorm.DB, userID uuid.UUID, template, key string, data func(addr string) any) error {
	addr, err := account.EmailTx(ctx, tx, userID)
	if err != nil || addr == "" {
		return err
	}
	return s.mailer.EnqueueEmailTx(ctx, tx, template, addr, key, data(addr))
}
