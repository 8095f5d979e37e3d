package billing

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// RevenueStatuses are the statuses whose subscriptions count as recurring revenue: active, and past_due
// (still owed, until Paddle gives up and cancels). Not trialing (nothing paid yet), paused or canceled.
var RevenueStatuses = []string{"active", "past_due"}

// Revenue is monthly recurring revenue from what customers actually pay: every recurring item of every
// revenue subscription at its unit price × quantity, normalised to a month, per currency. An item whose
// payload carried no amount (rows from before items were stored) takes its price's amount from the tiers
// file; an item with neither is unpriced.
type Revenue struct {
	// MRR is minor units per month by currency (a yearly 12000 is 1000 a month).
	MRR           map[string]int64
	Subscriptions int // revenue subscriptions counted
	Unpriced      int // of those, with a recurring item of unknown amount (left out of MRR)
	// Discounted is how many carry a discount: Paddle's subscription payload has none of its amount, so
	// their MRR is at list price.
	Discounted int
	// FromTiersFile is how many items were priced from the tiers file rather than the payload.
	FromTiersFile int
	// ByTier splits MRR, Subscriptions and Unpriced by the subscription's tier.
	ByTier map[string]TierRevenue
}

// TierRevenue is one tier's part of Revenue.
type TierRevenue struct {
	MRR           map[string]int64
	Subscriptions int
	Unpriced      int
}

type revenueItem struct {
	SubscriptionID   uuid.UUID
	Tier             string
	Discounted       bool
	PriceID          string
	Quantity         int
	UnitAmount       *int64
	Currency         *string
	BillingInterval  *string
	BillingFrequency *int
}

// RevenueTx computes Revenue on tx (the metrics endpoint, the admin view).
func (s *Service) RevenueTx(ctx context.Context, tx *gorm.DB) (Revenue, error) {
	var items []revenueItem
	if err := tx.WithContext(ctx).Raw(`SELECT s.id AS subscription_id, s.tier, s.discount IS NOT NULL AS discounted,
		i.price_id, i.quantity, i.unit_amount, i.currency, i.billing_interval, i.billing_frequency
		FROM subscriptions s JOIN subscription_items i ON i.subscription_id = s.id
		WHERE s.status IN ? AND s.access_revoked_at IS NULL AND i.recurring AND i.status <> 'inactive'
		ORDER BY s.id, i.position`, RevenueStatuses).Scan(&items).Error; err != nil {
		return Revenue{}, fmt.Errorf("revenue: %w", err)
	}
	out := Revenue{MRR: map[string]int64{}, ByTier: map[string]TierRevenue{}}
	monthly, tierMonthly := map[string]float64{}, map[string]map[string]float64{}
	seen, unpriced := map[uuid.UUID]bool{}, map[uuid.UUID]bool{}
	for _, it := range items {
		tier := out.ByTier[it.Tier]
		if tierMonthly[it.Tier] == nil {
			tierMonthly[it.Tier] = map[string]float64{}
		}
		if !seen[it.SubscriptionID] {
			seen[it.SubscriptionID] = true
			out.Subscriptions++
			tier.Subscriptions++
			if it.Discounted {
				out.Discounted++
			}
		}
		amount, cur, interval, freq, fromFile, ok := s.itemPrice(it)
		if !ok {
			if !unpriced[it.SubscriptionID] {
				unpriced[it.SubscriptionID] = true
				out.Unpriced++
				tier.Unpriced++
			}
			out.ByTier[it.Tier] = tier
			continue
		}
		if fromFile {
			out.FromTiersFile++
		}
		v := float64(amount) * float64(it.Quantity) * perMonth(interval, freq)
		monthly[cur] += v
		tierMonthly[it.Tier][cur] += v
		out.ByTier[it.Tier] = tier
	}
	out.MRR = rounded(monthly)
	for name, m := range tierMonthly {
		tier := out.ByTier[name]
		tier.MRR = rounded(m)
		out.ByTier[name] = tier
	}
	return out, nil
}

// rounded turns fractional minor units per currency into whole ones.
func rounded(m map[string]float64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for cur, v := range m {
		out[cur] = int64(math.Round(v))
	}
	return out
}

// TierCount is a number of subscriptions of one tier.
type TierCount struct {
	Tier  string
	Count int64
}

// CanceledSinceTx counts the subscriptions canceled since since, by tier (the overview's churn), on
// ix_subscriptions_canceled_at.
func CanceledSinceTx(ctx context.Context, tx *gorm.DB, since time.Time) ([]TierCount, error) {
	out := []TierCount{}
	if err := tx.WithContext(ctx).Raw(`SELECT tier, count(*) AS count FROM subscriptions WHERE canceled_at >= ?
		GROUP BY tier ORDER BY tier`, since).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("canceled subscriptions: %w", err)
	}
	return out, nil
}

// itemPrice is an item's unit amount and cycle: the payload's, else the tiers file's for its price.
func (s *Service) itemPrice(it revenueItem) (amount int64, cur, interval string, freq int, fromFile, ok bool) {
	if it.UnitAmount != nil && it.Currency != nil && it.BillingInterval != nil {
		return *it.UnitAmount, *it.Currency, *it.BillingInterval, max(deref(it.BillingFrequency), 1), false, true
	}
	p, known := s.tiers.Price(it.PriceID)
	if !known || !p.HasAmount || p.Interval == "" {
		return 0, "", "", 0, false, false
	}
	return p.Amount, p.Currency, p.Interval, max(p.Frequency, 1), true, true
}

// perMonth is how many of an interval×frequency cycle fit in a month.
func perMonth(interval string, frequency int) float64 {
	f := float64(max(frequency, 1))
	switch interval {
	case "day":
		return 365.0 / 12 / f
	case "week":
		return 52.0 / 12 / f
	case "year":
		return 1 / (12 * f)
	}
	return 1 / f
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
