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

// monthEnd is the end of month k of p: the next month's start, or the period's end if that comes first.
// A month's allowance expires there when its tier has a rollover rule.
func monthEnd(p period, k int) time.Time {
	if next := monthStart(p.StartsAt, k+1); next.Before(p.EndsAt) {
		return next
	}
	return p.EndsAt.UTC()
}

// grantJobID is the base key of a subscription month's grants (see the calendar above).
func grantJobID(subscriptionID string, month time.Time) string {
	return "grant:" + subscriptionID + ":" + month.UTC().Format(time.RFC3339)
}

// topUpJobID keys a renewal's top-up of a month to tier × quantity. Once it is granted the month holds at
// least that allowance, so the same key is never needed twice. At most 6+50+1+20+1+32+2+9 = 121 characters.
func topUpJobID(subscriptionID string, month time.Time, tier string, quantity int) string {
	return grantJobID(subscriptionID, month) + ":" + tier + ":x" + strconv.Itoa(quantity)
}

// paidJobID keys the top-up an upgrade's payment bought: once per paying transaction.
func paidJobID(subscriptionID string, month time.Time, transactionID string) string {
	return grantJobID(subscriptionID, month) + ":paid:" + transactionID
}

// rolloverJobID keys what a month carries over from the month before.
func rolloverJobID(subscriptionID string, month time.Time) string {
	return "rollover:" + subscriptionID + ":" + month.UTC().Format(time.RFC3339)
}

// grantMode is what a grant of a month may do.
type grantMode int

const (
	// firstGrant grants the month's allowance only if the month has no grant yet: subscription snapshots
	// and the monthly-grants job. A snapshot never tops a month up: only a payment does.
	firstGrant grantMode = iota
	// renewal tops the month up to its full allowance: a renewal pays the whole period at its plan.
	renewal
	// upgradePaid tops the month up by the difference an upgrade's payment bought, prorated by the time
	// left in the month when it was paid.
	upgradePaid
)

// monthGrant is one month of a subscription to grant.
type monthGrant struct {
	userID   uuid.UUID
	subID    string
	period   period // the billing period the month belongs to
	month    int    // k: the month of the period
	tier     Tier
	quantity int
	mode     grantMode
	// For upgradePaid: the paying transaction and when it was paid.
	txnID  string
	paidAt time.Time
}

// grantMonth brings the user's grants for one month of a subscription up to what g's mode allows and
// returns what it granted. The month's first grant carries over what the tier's rollover rule keeps of the
// month before; with a rollover rule every grant of the month expires at the month's end. The caller must
// hold the subscription row's lock: the read of what the month has and the grant that follows must not
// interleave with another event of the same subscription.
func (s *Service) grantMonth(ctx context.Context, tx *gorm.DB, g monthGrant) (int, error) {
	want := g.tier.Allowance(g.quantity)
	if want <= 0 {
		return 0, nil
	}
	start, end := monthStart(g.period.StartsAt, g.month), monthEnd(g.period, g.month)
	var expires *time.Time
	if g.tier.Rollover.Expires {
		expires = &end
	}
	ledger := s.credits.WithTx(tx)
	key := grantJobID(g.subID, start)
	have, err := ledger.Granted(ctx, g.userID, key)
	if err != nil {
		return 0, err
	}
	spec := credits.GrantSpec{UserID: g.userID, Amount: want, Key: key, Reason: "monthly credits: " + g.tier.Name,
		Category: credits.CategoryAllowance, Source: g.subID, ExpiresAt: expires}
	switch {
	case have == 0 && g.mode == upgradePaid:
		// The month's first grant has not happened yet (the job is behind): it comes from the snapshot or
		// the job at the tier then current, which the paid change already is.
		return 0, nil
	case have == 0:
		if expires != nil {
			if _, err := ledger.CarryOver(ctx, credits.Carry{UserID: g.userID, Source: g.subID, Boundary: start,
				Max: g.tier.Rollover.Max, Key: rolloverJobID(g.subID, start), ExpiresAt: expires}); err != nil {
				return 0, err
			}
		}
	case g.mode == firstGrant || want <= have:
		return 0, nil // a lower allowance (downgrade, fewer seats) grants nothing back
	case g.mode == renewal:
		spec.Amount, spec.Key = want-have, topUpJobID(g.subID, start, g.tier.Name, g.quantity)
		spec.Reason = "monthly credits top-up: " + g.tier.Name + " x" + strconv.Itoa(g.quantity)
	case g.mode == upgradePaid:
		spec.Amount, spec.Key = prorate(want-have, start, end, g.paidAt), paidJobID(g.subID, start, g.txnID)
		spec.Reason = "upgrade paid: " + g.tier.Name + " x" + strconv.Itoa(g.quantity)
	}
	if spec.Amount <= 0 {
		return 0, nil
	}
	_, created, err := ledger.Grant(ctx, spec)
	if err != nil || !created {
		return 0, err
	}
	return spec.Amount, nil
}

// prorate is the share of n credits for the time left in [start, end) at paidAt, rounded down: a top-up
// never grants more than the time that was paid for.
func prorate(n int, start, end, paidAt time.Time) int {
	total, left := end.Sub(start), end.Sub(paidAt)
	switch {
	case total <= 0 || left <= 0:
		return 0
	case left >= total:
		return n
	}
	return int(int64(n) * int64(left/time.Second) / int64(total/time.Second))
}

// grantCurrentMonth grants the month of the snapshot's occurred_at its first grant, at the snapshot's
// allowance (tier × seats), for an active subscription whose access is not revoked. A month that already
// has a grant gets nothing from a snapshot: an upgrade or more seats are topped up when their payment
// completes (onTransactionCompleted), never on the snapshot's word alone. The upsert holds the row's lock.
func (s *Service) grantCurrentMonth(ctx context.Context, tx *gorm.DB, r synced) (int, error) {
	p := r.sub.CurrentBillingPeriod
	if r.sub.Status != "active" || p == nil {
		return 0, nil
	}
	if !r.env.OccurredAt.Before(p.EndsAt) {
		return 0, nil
	}
	revoked, err := accessRevoked(ctx, tx, r.sub.ID)
	if err != nil || revoked {
		return 0, err // a refunded period earns nothing more; a new payment lifts this
	}
	return s.grantMonth(ctx, tx, monthGrant{userID: r.userID, subID: r.sub.ID, period: *p,
		month: monthIndex(p.StartsAt, r.env.OccurredAt), tier: r.tier, quantity: r.plan.quantity, mode: firstGrant})
}

// accessRevoked reports whether a full refund revoked the subscription's access (until a new payment).
func accessRevoked(ctx context.Context, tx *gorm.DB, subID string) (bool, error) {
	var revoked bool
	if err := tx.WithContext(ctx).Raw(`SELECT access_revoked_at IS NOT NULL FROM subscriptions
		WHERE paddle_subscription_id = ?`, subID).Row().Scan(&revoked); err != nil {
		return false, fmt.Errorf("read access: %w", err)
	}
	return revoked, nil
}

// endAllowance writes off, at once, what is left of the subscription's allowance when it stops granting
// the tier (a drop to free, a pause, a full refund of its period), if the tier it was granted under has a
// rollover rule; a tier without one keeps today's meaning: its allowance never expires.
func (s *Service) endAllowance(ctx context.Context, tx *gorm.DB, userID uuid.UUID, subID, tierName, reason string) error {
	tier, ok := s.tiers.ByName(tierName)
	if !ok || !tier.Rollover.Expires {
		return nil
	}
	_, err := s.credits.WithTx(tx).ExpireSource(ctx, userID, credits.CategoryAllowance, subID, reason)
	return err
}
