package billing

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// The grant calendar. Credits are a monthly allowance on every billing interval: month k of a billing
// period starts k calendar months after the period's start (UTC, the day clamped to the month's last, as
// Postgres does: a period starting Jan 31 has months starting Feb 28, Mar 31, ...). A period shorter than a
// month (daily or weekly plans) has only month 0, so those grant once per period.
//
// Each month's grants are one family of ledger keys. The first grant of a month takes the base key,
// grant:<subscription>:<month start RFC 3339> — for monthly plans exactly the key of the former period
// grant, so nothing doubles across the change. A later event of the same month that raises the allowance
// (an upgrade, more seats) tops the month up to the new allowance under
// grant:<subscription>:<month start>:<tier>:x<quantity>; a lower allowance grants nothing.

// monthStart is the start of month k (from 0) of a period starting at periodStart.
func monthStart(periodStart time.Time, k int) time.Time {
	s := periodStart.UTC()
	y, m, d := s.Date()
	first := time.Date(y, m+time.Month(k), 1, s.Hour(), s.Minute(), s.Second(), s.Nanosecond(), time.UTC)
	if last := time.Date(first.Year(), first.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day(); d > last {
		d = last
	}
	return first.AddDate(0, 0, d-1)
}

// monthIndex is the month of the period (starting at periodStart) that at falls in; 0 before the start.
func monthIndex(periodStart, at time.Time) int {
	s, a := periodStart.UTC(), at.UTC()
	k := (a.Year()-s.Year())*12 + int(a.Month()) - int(s.Month())
	for k > 0 && monthStart(s, k).After(a) {
		k--
	}
	return max(k, 0)
}

// monthOf is the start of the month of p that at falls in (month 0 when at is before the period); ok is
// false once the period has ended.
func monthOf(p period, at time.Time) (time.Time, bool) {
	if !at.Before(p.EndsAt) {
		return time.Time{}, false
	}
	return monthStart(p.StartsAt, monthIndex(p.StartsAt, at)), true
}

// grantJobID is the base key of a subscription month's grants (see the calendar above).
func grantJobID(subscriptionID string, month time.Time) string {
	return "grant:" + subscriptionID + ":" + month.UTC().Format(time.RFC3339)
}

// topUpJobID keys the top-up of a month to tier × quantity. Once it is granted the month holds at least
// that allowance, so the same key is never needed twice. At most 6+50+1+20+1+32+2+9 = 121 characters.
func topUpJobID(subscriptionID string, month time.Time, tier string, quantity int) string {
	return grantJobID(subscriptionID, month) + ":" + tier + ":x" + strconv.Itoa(quantity)
}

// grantMonth brings the user's grants for one month of a subscription up to tier's allowance for quantity
// seats and returns what it granted. onlyFirst (the job) grants only a month that has no grant at all.
// The caller must hold the subscription row's lock: the read of what the month has and the grant that
// follows must not interleave with another event of the same subscription.
func (s *Service) grantMonth(ctx context.Context, tx *gorm.DB, userID uuid.UUID, subID string, month time.Time,
	tier Tier, quantity int, onlyFirst bool) (int, error) {
	want := tier.Allowance(quantity)
	if want <= 0 {
		return 0, nil
	}
	ledger := s.credits.WithTx(tx)
	key := grantJobID(subID, month)
	have, err := ledger.Granted(ctx, userID, key)
	if err != nil {
		return 0, err
	}
	amount, reason := want, "monthly credits: "+tier.Name
	switch {
	case have == 0:
	case onlyFirst || want <= have:
		return 0, nil // a lower allowance (downgrade, fewer seats) grants nothing back
	default:
		amount, key = want-have, topUpJobID(subID, month, tier.Name, quantity)
		reason = "monthly credits top-up: " + tier.Name + " x" + strconv.Itoa(quantity)
	}
	_, created, err := ledger.Grant(ctx, credits.GrantSpec{UserID: userID, Amount: amount, Key: key, Reason: reason,
		Category: credits.CategoryAllowance, Source: subID})
	if err != nil || !created {
		return 0, err
	}
	return amount, nil
}

// grantCurrentMonth tops the month of the snapshot's occurred_at up to the snapshot's allowance (tier ×
// seats), for an active subscription whose access is not revoked. A stale snapshot (a newer one is
// already applied) still tops up its own month: every event then grants "at least its allowance", so the
// month ends at the largest allowance delivered, in any arrival order. The upsert holds the row's lock.
func (s *Service) grantCurrentMonth(ctx context.Context, tx *gorm.DB, r synced) (int, error) {
	p := r.sub.CurrentBillingPeriod
	if r.sub.Status != "active" || p == nil {
		return 0, nil
	}
	month, ok := monthOf(*p, r.env.OccurredAt)
	if !ok {
		return 0, nil
	}
	var revoked bool
	if err := tx.WithContext(ctx).Raw(`SELECT access_revoked_at IS NOT NULL FROM subscriptions
		WHERE paddle_subscription_id = ?`, r.sub.ID).Row().Scan(&revoked); err != nil {
		return 0, fmt.Errorf("grant month: %w", err)
	}
	if revoked {
		return 0, nil // a refunded period earns nothing more; a new payment lifts this
	}
	return s.grantMonth(ctx, tx, r.userID, r.sub.ID, month, r.tier, r.plan.quantity, false)
}
