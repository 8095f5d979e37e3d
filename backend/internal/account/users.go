package account

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// The users table belongs to this package: other packages create users and change their tier only through
// the functions below, each on the caller's transaction (tx may also be a pool), so one transaction can
// span a webhook claim, a subscription row and the user it binds.

// EnsureUser returns the user for an authenticated Clerk id, creating the row on first sight: a user can
// call the API before their user.created webhook arrives (Svix retries for a day). The lazy row gets no
// signup credits and no welcome email; user.created still brings both, once.
func (s *Service) EnsureUser(ctx context.Context, clerkUserID, email string) (models.User, error) {
	u, err := EnsureUserTx(ctx, s.db, clerkUserID, email)
	if err != nil {
		return models.User{}, err
	}
	if u.DeletedAt != nil {
		return u, ErrDeleted
	}
	return u, nil
}

// LiveUser returns the user with internal id id for a trusted caller acting on their behalf (a worker
// spending for a user): db.ErrNotFound when there is none, ErrDeleted when the account is soft-deleted.
func (s *Service) LiveUser(ctx context.Context, id uuid.UUID) (models.User, error) {
	u, err := UserTx(ctx, s.db, id)
	if err != nil {
		return models.User{}, err
	}
	if u.DeletedAt != nil {
		return models.User{}, ErrDeleted
	}
	return u, nil
}

// EnsureUserTx returns the user with clerkUserID, creating it with email when there is none. A soft-deleted
// user is returned as it is (DeletedAt set): whether that matters is the caller's policy.
func EnsureUserTx(ctx context.Context, tx *gorm.DB, clerkUserID, email string) (models.User, error) {
	var u models.User
	q := tx.WithContext(ctx)
	// Read first: every authenticated request passes here, and an upsert would write a row version each time.
	res := q.Where("clerk_user_id = ?", clerkUserID).Limit(1).Find(&u)
	if res.Error == nil && res.RowsAffected == 0 {
		// DO UPDATE rather than DO NOTHING so RETURNING yields the row a concurrent creator just committed.
		res = q.Raw(`INSERT INTO users (clerk_user_id, email) VALUES (?, ?)
			ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE SET clerk_user_id = EXCLUDED.clerk_user_id
			RETURNING *`, clerkUserID, strings.ToLower(email)).Scan(&u)
	}
	if res.Error != nil {
		return models.User{}, fmt.Errorf("ensure user %s: %w", clerkUserID, res.Error)
	}
	return u, nil
}

// SetTierTx writes the user's current tier (server-controlled: only billing's webhook handlers and jobs
// call it). It reports whether the tier changed.
func SetTierTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, tier string) (bool, error) {
	res := tx.WithContext(ctx).Exec(`UPDATE users SET current_tier = ?, updated_at = now() WHERE id = ?`, tier, userID)
	if res.Error != nil {
		return false, fmt.Errorf("set tier: %w", res.Error)
	}
	return res.RowsAffected > 0, nil
}

// DowngradeTx moves a live user to tier unless they are on it already, and reports whether it did. A
// soft-deleted user is left alone (deleted reports it), so a restore finds the downgrade still to do.
// Concurrent calls downgrade once: the second waits on the row lock, then no longer matches.
func DowngradeTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, tier string) (changed, deleted bool, err error) {
	var rows []struct {
		Changed bool
		Deleted bool
	}
	err = tx.WithContext(ctx).Raw(`WITH d AS (
		UPDATE users SET current_tier = ?, updated_at = now()
		 WHERE id = ? AND current_tier <> ? AND deleted_at IS NULL RETURNING id)
		SELECT EXISTS (SELECT 1 FROM d) AS changed,
		       EXISTS (SELECT 1 FROM users WHERE id = ? AND deleted_at IS NOT NULL) AS deleted`,
		tier, userID, tier, userID).Scan(&rows).Error
	if err != nil || len(rows) == 0 {
		return false, false, fmt.Errorf("downgrade user %s: %w", userID, err)
	}
	return rows[0].Changed, rows[0].Deleted, nil
}

// EmailTx returns a live user's email address, "" when the user is deleted or has none.
func EmailTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID) (string, error) {
	var addrs []string
	if err := tx.WithContext(ctx).Raw(`SELECT email FROM users WHERE id = ? AND deleted_at IS NULL`, userID).
		Scan(&addrs).Error; err != nil {
		return "", fmt.Errorf("user email: %w", err)
	}
	if len(addrs) == 0 {
		return "", nil
	}
	return addrs[0], nil
}
