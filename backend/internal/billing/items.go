package billing

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// plan is the item of a subscription or transaction that decides the tier: the one whose price a tier
// lists. Add-ons and one-time charges are recorded but decide nothing.
type plan struct {
	index    int
	item     item
	tier     Tier
	quantity int
	// others are the prices of further tiered items (a misconfigured subscription): the highest tier won.
	others []string
}

// planOf finds the tiered item wherever it sits in items. With items of two tiers the higher tier (later
// in the tiers file) wins, and others names the rest for the audit row. No tiered item at all is
// ErrUnknownPrice: the delivery fails, and a fixed tiers file heals it on Paddle's retry.
func (t *Tiers) planOf(items []item) (plan, error) {
	p := plan{index: -1}
	var tiered []string
	for i, it := range items {
		tier, ok := t.byPrice[it.Price.ID]
		if !ok {
			continue
		}
		tiered = append(tiered, it.Price.ID)
		if p.index < 0 || tier.Rank > p.tier.Rank {
			p = plan{index: i, item: it, tier: tier, quantity: max(it.quantity(), 1)}
		}
	}
	if p.index < 0 {
		ids := make([]string, len(items))
		for i, it := range items {
			ids[i] = it.Price.ID
		}
		return p, fmt.Errorf("%w: none of %s (add the plan's price to the tiers file)", ErrUnknownPrice, strings.Join(ids, ", "))
	}
	for _, id := range tiered {
		if id != p.item.Price.ID {
			p.others = append(p.others, id)
		}
	}
	return p, nil
}

// itemRows turns a snapshot's items into subscription_items rows (tieredAt marks the plan).
func itemRows(subID uuid.UUID, items []item, tieredAt int, currency string) []models.SubscriptionItem {
	rows := make([]models.SubscriptionItem, 0, len(items))
	for i, it := range items {
		// What the columns cannot hold is dropped rather than failing the delivery forever: the item is
		// still recorded, only without that detail.
		row := models.SubscriptionItem{SubscriptionID: subID, Position: i, PriceID: it.Price.ID,
			ProductID: fits(it.Price.ProductID, 64), Quantity: it.quantity(), Recurring: it.recurring(),
			Status: fits(it.Status, 16), Tiered: i == tieredAt}
		if amount, cur, ok := it.unitPrice(currency); ok && len(cur) == 3 {
			row.UnitAmount, row.Currency = &amount, &cur
		}
		if c := it.Price.BillingCycle; c != nil && slices.Contains(validIntervals, c.Interval) {
			freq := max(c.Frequency, 1)
			row.BillingInterval, row.BillingFrequency = &c.Interval, &freq
		}
		rows = append(rows, row)
	}
	return rows
}

// fits is s, or "" when it is longer than the column's n characters.
func fits(s string, n int) string {
	if len(s) > n {
		return ""
	}
	return s
}

// replaceItems stores the items of the snapshot just applied, replacing the previous set: items are part
// of the snapshot, so they follow its (occurred_at, event_id) order.
func replaceItems(ctx context.Context, tx *gorm.DB, subID uuid.UUID, rows []models.SubscriptionItem) error {
	q := tx.WithContext(ctx)
	if err := q.Exec(`DELETE FROM subscription_items WHERE subscription_id = ?`, subID).Error; err != nil {
		return fmt.Errorf("replace subscription items: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	if err := q.Create(&rows).Error; err != nil {
		return fmt.Errorf("replace subscription items: %w", err)
	}
	return nil
}

// SubscriptionItemsTx returns the items of the given subscriptions (by row id), in payload order.
func SubscriptionItemsTx(ctx context.Context, tx *gorm.DB, subscriptionIDs []uuid.UUID) (map[uuid.UUID][]models.SubscriptionItem, error) {
	out := map[uuid.UUID][]models.SubscriptionItem{}
	if len(subscriptionIDs) == 0 {
		return out, nil
	}
	var rows []models.SubscriptionItem
	if err := tx.WithContext(ctx).Where("subscription_id IN ?", subscriptionIDs).
		Order("subscription_id, position").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("subscription items: %w", err)
	}
	for _, r := range rows {
		out[r.SubscriptionID] = append(out[r.SubscriptionID], r)
	}
	return out, nil
}
