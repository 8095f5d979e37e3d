package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// grantStatuses are the statuses whose months the monthly-grants job grants: active, and canceled for the
// months that start before current_period_end of a period it saw active (a scheduled cancellation keeps
// the paid period). Not trialing (a trial's first paid period comes with its transaction), not past_due
// (the period's payment failed; the job holds and catches up once Paddle reports it active again), not
// paused. This is the one definition; SQL takes it as a parameter.
var grantStatuses = []string{"active", "canceled"}

// jobFrom is next_grant_at for a snapshot that starts a new period: its first month, so the job is the
// safety net for a month 0 no handler granted; none for a trial, a canceled snapshot or no period. (For a
// snapshot of the same period the upsert keeps the stored value.)
func jobFrom(sub subscriptionData) *time.Time {
	p := sub.CurrentBillingPeriod
	if p == nil || sub.Status == "trialing" || sub.Status == "canceled" {
		return nil
	}
	start := p.StartsAt.UTC()
	return &start
}

// monthlyBatch bounds one transaction of GrantMonths; monthlyMaxBatches bounds one run.
const (
	monthlyBatch      = 200
	monthlyMaxBatches = 50
)

// MonthlyReport is what one GrantMonths run did.
type MonthlyReport struct {
	Subscriptions int // due subscriptions looked at
	Grants        int // months granted
	Credits       int // credits granted in all
}

// GrantMonths grants every month that has started by now, in the current period of every subscription in
// grantStatuses whose access is not revoked, and has no grant yet: catch-up after downtime included (a
// month the job missed is granted on its next run). Each subscription's next_grant_at says where the job
// goes on, so a run reads only what is due. Idempotent and safe beside itself: rows are locked FOR UPDATE
// SKIP LOCKED (the same lock every webhook of the subscription takes), and a month that has any grant is
// never granted again by the job.
func (s *Service) GrantMonths(ctx context.Context, now time.Time) (MonthlyReport, error) {
	var total MonthlyReport
	for range monthlyMaxBatches {
		r, err := s.grantMonthsBatch(ctx, now)
		total.Subscriptions += r.Subscriptions
		total.Grants += r.Grants
		total.Credits += r.Credits
		if err != nil {
			return total, fmt.Errorf("monthly grants: %w", err)
		}
		if r.Subscriptions < monthlyBatch || ctx.Err() != nil {
			break
		}
	}
	return total, nil
}

type dueSubscription struct {
	ID                 uuid.UUID
	UserID             uuid.UUID
	SubID              string `gorm:"column:paddle_subscription_id"`
	Tier               string
	Quantity           int
	CurrentPeriodStart *time.Time
	CurrentPeriodEnd   *time.Time
	NextGrantAt        time.Time
}

func (s *Service) grantMonthsBatch(ctx context.Context, now time.Time) (MonthlyReport, error) {
	var rep MonthlyReport
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var due []dueSubscription
		if err := tx.Raw(`SELECT id, user_id, paddle_subscription_id, tier, quantity, current_period_start,
			current_period_end, next_grant_at FROM subscriptions
			WHERE next_grant_at <= ? AND status IN ? AND access_revoked_at IS NULL
			ORDER BY next_grant_at LIMIT ? FOR UPDATE SKIP LOCKED`, now, grantStatuses, monthlyBatch).Scan(&due).Error; err != nil {
			return err
		}
		rep.Subscriptions = len(due)
		for _, d := range due {
			next, grants, credits, err := s.grantDue(ctx, tx, d, now)
			if err != nil {
				return err
			}
			rep.Grants += grants
			rep.Credits += credits
			if err := tx.Exec(`UPDATE subscriptions SET next_grant_at = ? WHERE id = ?`, next, d.ID).Error; err != nil {
				return err
			}
		}
		return nil
	})
	return rep, err
}

// grantDue grants d's months from next_grant_at up to now within its period, and returns the next month
// start still to come in the period (nil when the period has no more).
func (s *Service) grantDue(ctx context.Context, tx *gorm.DB, d dueSubscription, now time.Time) (*time.Time, int, int, error) {
	if d.CurrentPeriodStart == nil || d.CurrentPeriodEnd == nil {
		return nil, 0, 0, nil
	}
	tier, ok := s.tiers.ByName(d.Tier)
	if !ok {
		// A tier removed from the file: it grants nothing until a snapshot brings a known price.
		return nil, 0, 0, nil
	}
	p := period{StartsAt: *d.CurrentPeriodStart, EndsAt: *d.CurrentPeriodEnd}
	grants, credits := 0, 0
	for k := monthIndex(p.StartsAt, d.NextGrantAt); ; k++ {
		month := monthStart(p.StartsAt, k)
		if !month.Before(p.EndsAt) {
			return nil, grants, credits, nil
		}
		if month.After(now) {
			return &month, grants, credits, nil
		}
		n, err := s.grantMonth(ctx, tx, monthGrant{userID: d.UserID, subID: d.SubID, period: p, month: k, tier: tier,
			quantity: d.Quantity, mode: firstGrant})
		if err != nil {
			return nil, grants, credits, err
		}
		if n > 0 {
			grants++
			credits += n
		}
	}
}
