package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/audit"
)

// expiryBatch bounds one transaction of ExpireCanceled.
const expiryBatch = 500

// The expiry job's audit actor and action.
const (
	ActorExpiry   = "system:expiry"
	ActionExpired = "subscription.expired"
)

// ExpireCanceled downgrades every user whose canceled subscription's paid period has ended to what their
// other live subscriptions grant (free without one), with one audit row each, and returns how many it
// downgraded. Each subscription is looked at once (expired_at marks it), so a run costs what has expired
// since the last one, not every cancellation ever. Running it twice, or from several instances at once,
// downgrades nobody twice: SKIP LOCKED splits the rows and the owner's downgrade matches only a user not
// yet on free. A soft-deleted user's subscription stays unmarked, so a restore still gets the downgrade.
func (s *Service) ExpireCanceled(ctx context.Context, now time.Time) (int, error) {
	total := 0
	for {
		n, marked, scanned, err := s.expireBatch(ctx, now)
		total += n
		if err != nil {
			return total, fmt.Errorf("expire canceled subscriptions: %w", err)
		}
		// marked == 0: only deleted users' rows are left in the batch, and the next one would be the same.
		if scanned < expiryBatch || marked == 0 || ctx.Err() != nil {
			return total, nil
		}
	}
}

func (s *Service) expireBatch(ctx context.Context, now time.Time) (downgraded, marked, scanned int, err error) {
	free := s.tiers.Free().Name
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var ended []struct {
			ID     uuid.UUID
			UserID uuid.UUID
			SubID  string `gorm:"column:paddle_subscription_id"`
			Tier   string
		}
		if err := tx.Raw(`SELECT id, user_id, paddle_subscription_id, tier FROM subscriptions
			WHERE status = 'canceled' AND current_period_end <= ? AND expired_at IS NULL
			ORDER BY current_period_end LIMIT ? FOR UPDATE SKIP LOCKED`, now, expiryBatch).Scan(&ended).Error; err != nil {
			return err
		}
		scanned = len(ended)
		done := make([]uuid.UUID, 0, len(ended))
		for _, e := range ended {
			if err := s.endAllowance(ctx, tx, e.UserID, e.SubID, e.Tier, "subscription ended"); err != nil {
				return err
			}
			// The user goes to what their other live subscriptions grant, free only without one.
			other, err := s.otherLiveTier(ctx, tx, e.UserID, e.SubID)
			if err != nil {
				return err
			}
			to := free
			if other.Name != "" {
				to = other.Name
			}
			changed, deleted, err := account.DowngradeTx(ctx, tx, e.UserID, to)
			if err != nil {
				return err
			}
			if deleted {
				continue
			}
			if changed {
				downgraded++
				if err := audit.Write(ctx, tx, audit.Entry{Actor: ActorExpiry, Action: ActionExpired, UserID: &e.UserID,
					ResourceType: "user", ResourceID: e.UserID.String(), Details: map[string]any{"tier": to}}); err != nil {
					return err
				}
			}
			done = append(done, e.ID)
		}
		marked = len(done)
		if marked == 0 {
			return nil
		}
		return tx.Exec(`UPDATE subscriptions SET expired_at = ? WHERE id IN ?`, now, done).Error
	})
	return downgraded, marked, scanned, err
}
