package account

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// ErrDeleted means the account is soft-deleted: the API answers 410 until it is restored.
var ErrDeleted = errors.New("account deleted")

// EnsureUser returns the user for an authenticated Clerk id, creating the row on first sight: a user can
// call the API before their user.created webhook arrives (Svix retries for a day). The lazy row gets no
// signup credits and no welcome email; user.created still brings both, once.
func (s *Service) EnsureUser(ctx context.Context, clerkUserID, email string) (models.User, error) {
	var u models.User
	q := s.db.WithContext(ctx)
	// Read first: every authenticated request passes here, and an upsert would write a row version each time.
	res := q.Where("clerk_user_id = ?", clerkUserID).Limit(1).Find(&u)
	if res.Error == nil && res.RowsAffected == 0 {
		res = q.Raw(`INSERT INTO users (clerk_user_id, email) VALUES (?, ?)
			ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE SET clerk_user_id = EXCLUDED.clerk_user_id
			RETURNING *`, clerkUserID, strings.ToLower(email)).Scan(&u)
	}
	if res.Error != nil {
		return models.User{}, fmt.Errorf("ensure user: %w", res.Error)
	}
	if u.DeletedAt != nil {
		return u, ErrDeleted
	}
	return u, nil
}
