package account

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Identity is a verified Clerk session as the account policy needs it.
type Identity struct {
	ClerkUserID string
	Email       string
	// EmailVerified is the session's word that Email is verified; only then is Email stored.
	EmailVerified bool
	// AuthTime is when the user actually signed in (the JWT auth_time claim), nil when absent.
	AuthTime *time.Time
}

// Authenticate returns the user behind a verified session, creating it lazily. A soft-deleted account is
// restored when the session proves a sign-in after the deletion, within the grace period; otherwise it
// stays deleted and Authenticate returns ErrDeleted.
func (s *Service) Authenticate(ctx context.Context, id Identity) (models.User, error) {
	u, err := s.EnsureUser(ctx, id.ClerkUserID, id.Email, id.EmailVerified)
	if !errors.Is(err, ErrDeleted) || !s.mayRestore(u, id, time.Now()) {
		return u, err
	}
	return s.restore(ctx, u)
}

// mayRestore is the restore rule. auth_time, not iat: a session minted before the deletion keeps refreshing
// its iat every minute, so only a fresh sign-in shows the user wants the account back. No auth_time fails
// closed.
func (s *Service) mayRestore(u models.User, id Identity, now time.Time) bool {
	return u.DeletedAt != nil && id.AuthTime != nil && id.AuthTime.After(*u.DeletedAt) &&
		now.Before(u.DeletedAt.Add(s.grace()))
}

// restore clears deleted_at and audits once. The UPDATE matches only the deleted_at we saw, so of several
// concurrent requests exactly one restores; the others find the row already live and read it.
func (s *Service) restore(ctx context.Context, u models.User) (models.User, error) {
	var restored []models.User
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Raw(`UPDATE users SET deleted_at = NULL, updated_at = now()
			WHERE id = ? AND deleted_at = ? RETURNING *`, u.ID, *u.DeletedAt).Scan(&restored).Error
		if err != nil || len(restored) == 0 {
			return err
		}
		by := audit.Actor{UserID: u.ID, ClerkUserID: u.ClerkUserID}
		return audit.Write(ctx, tx, by.Entry(ActionRestored, "user", u.ClerkUserID,
			map[string]any{"deleted_at": u.DeletedAt.UTC()}))
	})
	if err != nil {
		return models.User{}, fmt.Errorf("restore account: %w", err)
	}
	if len(restored) == 1 {
		return restored[0], nil
	}
	return s.reload(ctx, u)
}

// reload reads the user again after losing a race; it answers ErrDeleted unless the row is live.
func (s *Service) reload(ctx context.Context, u models.User) (models.User, error) {
	var rows []models.User
	if err := s.db.WithContext(ctx).Where("id = ?", u.ID).Limit(1).Find(&rows).Error; err != nil {
		return models.User{}, fmt.Errorf("reload account: %w", err)
	}
	if len(rows) == 0 || rows[0].DeletedAt != nil {
		return u, ErrDeleted
	}
	return rows[0], nil
}
