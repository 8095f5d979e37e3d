package account

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// SetMarketingConsent records the caller's marketing consent with its time and source "api", and audits
// it. Only a change is written: repeating the current choice keeps the original time and writes nothing.
func (s *Service) SetMarketingConsent(ctx context.Context, a audit.Actor, given bool) (models.User, error) {
	var u models.User
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		// The row lock makes compare-then-write safe: of two identical concurrent requests the second sees
		// the first's result and writes nothing.
		if u, err = lockLiveUser(tx, a.UserID); err != nil || u.MarketingConsentGiven == given {
			return err
		}
		change := map[string]any{"marketing_consent_given": given, "marketing_consent_at": gorm.Expr("now()"),
			"marketing_consent_source": ConsentSourceAPI, "updated_at": gorm.Expr("now()")}
		if err := tx.Model(&u).Clauses(clause.Returning{}).Updates(change).Error; err != nil {
			return err
		}
		return audit.Write(ctx, tx, a.Entry(ActionConsentUpdated, "user", a.ClerkUserID, map[string]any{"marketing": given}))
	})
	if err != nil {
		return models.User{}, fmt.Errorf("set marketing consent: %w", err)
	}
	return u, nil
}

// Unsubscribe withdraws the marketing consent of the user an unsubscribe token names (see
// unsubscribe.go), and audits it with the requester's IP. It is idempotent: a repeat, or the token of an
// erased user, succeeds and writes nothing. A soft-deleted user can still withdraw consent.
func (s *Service) Unsubscribe(ctx context.Context, token, ip string) error {
	who, err := s.verifyUnsubscribeToken(token)
	if err != nil {
		return fmt.Errorf("unsubscribe: %w", err)
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The condition sits in the UPDATE: of concurrent clicks one changes the row and the others, blocked
		// on its lock, re-check and match nothing, so there is one audit row per real change. Exactly one of
		// the two ids is set; the other is NULL and matches nothing.
		var rows []struct {
			ID          uuid.UUID
			ClerkUserID string
		}
		err := tx.Raw(`UPDATE users SET marketing_consent_given = false, marketing_consent_at = now(),
			marketing_consent_source = ?, updated_at = now()
			WHERE (id = ? OR clerk_user_id = ?) AND marketing_consent_given RETURNING id, clerk_user_id`,
			ConsentSourceUnsubscribe, who.userID, who.clerkID).Scan(&rows).Error
		if err != nil || len(rows) == 0 {
			return err
		}
		u := rows[0]
		by := audit.Actor{UserID: u.ID, ClerkUserID: u.ClerkUserID, IP: ip}
		return audit.Write(ctx, tx, by.Entry(ActionUnsubscribed, "user", u.ClerkUserID, map[string]any{"via": "one_click_link"}))
	})
	if err != nil {
		return fmt.Errorf("unsubscribe: %w", err)
	}
	return nil
}
