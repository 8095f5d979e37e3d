package usage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

// Thresholds. A notification row is inserted in the transaction of the event that crosses its threshold,
// UNIQUE per (user, feature, usage month, threshold): concurrent events and redeliveries cannot make a
// second. Delivering it (the audit row, the email job, the hooks) is a transaction of its own that takes
// the row FOR UPDATE SKIP LOCKED and marks it notified_at, so it happens exactly once too: right after
// the event's commit by the same request, or by the usage-notifications task for a row left behind (a
// crash, or an event recorded in an app's own transaction).
const (
	ThresholdLimit80    = "limit_80"
	ThresholdLimit100   = "limit_100"
	ThresholdLowBalance = "low_balance"
)

// ActionThreshold is the audit action of a delivered notification.
const ActionThreshold = "usage.threshold_reached"

// Notification is one threshold a user crossed.
type Notification struct {
	ID     uuid.UUID
	UserID uuid.UUID
	// Feature is the feature's name; "" for the credit balance (low_balance).
	Feature   string
	Threshold string
	// PeriodStart is the usage month it belongs to; PeriodEnd its end (nil for low_balance).
	PeriodStart time.Time
	PeriodEnd   *time.Time
	// Used and Limit at the crossing; for low_balance the balance and the tier's low_balance.
	Used, Limit int64
	CreatedAt   time.Time
}

// Hook is what an app does when a user crosses a threshold (tell a CRM, open a ticket, upsell). It runs
// once per notification, inside the transaction that delivers it: write only through tx, enqueue jobs in
// tx for outside calls, return an error to have the delivery retried by the next run (everything rolls
// back). docs/usage.md, *Thresholds*.
type Hook struct {
	Name string
	Run  func(ctx context.Context, tx *gorm.DB, n Notification) error
}

const pendingSQL = `SELECT n.id, n.user_id, n.feature, n.threshold, n.period_start, c.period_end, n.used, n.limit_value, n.created_at
  FROM usage_notifications n
  LEFT JOIN usage_counters c ON c.user_id = n.user_id AND c.feature = n.feature AND c.period_start = n.period_start
 WHERE n.notified_at IS NULL AND (CAST($1 AS uuid[]) IS NULL OR n.user_id = ANY($1))
 ORDER BY n.created_at LIMIT 1 FOR UPDATE OF n SKIP LOCKED`

// DeliverNotifications delivers up to limit pending notifications (of users, or of anyone when users is
// empty), one transaction each, and returns how many it delivered. Safe beside itself: each row is taken
// SKIP LOCKED and delivered only while notified_at is unset.
func (s *Service) DeliverNotifications(ctx context.Context, limit int, users ...uuid.UUID) (int, error) {
	var filter any
	if len(users) > 0 {
		filter = uuidArray(users)
	}
	n := 0
	for n < limit {
		done, err := s.deliverOne(ctx, filter)
		if err != nil || !done {
			return n, err
		}
		n++
	}
	return n, nil
}

func (s *Service) deliverOne(ctx context.Context, filter any) (bool, error) {
	found := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n Notification
		err := db.QueryRow(ctx, tx, pendingSQL, []any{filter}, &n.ID, &n.UserID, &n.Feature, &n.Threshold, &n.PeriodStart,
			&n.PeriodEnd, &n.Used, &n.Limit, &n.CreatedAt)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		if err := s.deliver(ctx, tx, n); err != nil {
			return fmt.Errorf("notification %s: %w", n.ID, err)
		}
		_, err = db.Exec(ctx, tx, `UPDATE usage_notifications SET notified_at = $2 WHERE id = $1`, n.ID, s.now())
		return err
	})
	if err != nil {
		return false, fmt.Errorf("deliver usage notifications: %w", err)
	}
	return found, nil
}

// deliver writes the audit row, enqueues the email and runs the hooks, in tx.
func (s *Service) deliver(ctx context.Context, tx *gorm.DB, n Notification) error {
	details := map[string]any{"feature": n.Feature, "threshold": n.Threshold, "used": n.Used, "limit": n.Limit,
		"period_start": n.PeriodStart.UTC().Format(time.RFC3339), "notification_id": n.ID}
	if err := audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorSystem, Action: ActionThreshold, UserID: &n.UserID,
		ResourceType: "usage_feature", ResourceID: n.Feature, Details: details}); err != nil {
		return err
	}
	if s.jobs != nil {
		addr, err := account.EmailTx(ctx, tx, n.UserID)
		if err != nil {
			return err
		}
		if addr != "" {
			overage := false
			if f, ok := s.featureOf(ctx, tx, n); ok {
				overage = !f.Blocks()
			}
			data := email.UsageThresholdData{Email: addr, AppName: s.cfg.AppName, Feature: n.Feature, Threshold: n.Threshold,
				Used: n.Used, Limit: n.Limit, Overage: overage, ResetsAt: n.PeriodEnd, ManageURL: s.cfg.ManageURL}
			if err := s.jobs.EnqueueEmailTx(ctx, tx, email.TemplateUsageThreshold, addr, "usage_threshold/"+n.ID.String(), data); err != nil {
				return err
			}
		}
	}
	for _, h := range s.hooks {
		if err := h.Run(ctx, tx, n); err != nil {
			return fmt.Errorf("hook %s: %w", h.Name, err)
		}
	}
	return nil
}

// featureOf is the feature as the user's tier grants it now (the email says whether usage goes on).
func (s *Service) featureOf(ctx context.Context, tx *gorm.DB, n Notification) (billing.Feature, bool) {
	subs, err := billing.UsageContextsTx(ctx, tx, []uuid.UUID{n.UserID}, s.now())
	if err != nil {
		return billing.Feature{}, false
	}
	tier, _ := s.tiers.ByName(subs[n.UserID].Tier)
	return tier.Feature(n.Feature)
}

// deliverAfter delivers at once, after the events' commit, the notifications they caused. A failure is
// logged and left to the usage-notifications task: the events are recorded either way.
func (s *Service) deliverAfter(ctx context.Context, results []Result, events []Event) {
	var users []uuid.UUID
	for i, r := range results {
		if len(r.Notified) > 0 {
			users = append(users, events[i].UserID)
		}
	}
	if len(users) == 0 {
		return
	}
	if _, err := s.DeliverNotifications(context.WithoutCancel(ctx), 10*len(users), unique(users)...); err != nil {
		s.log.Warn("usage notifications: left for the next run", "error", err.Error())
	}
}
