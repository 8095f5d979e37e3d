package account

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Reads of the users table for the operator's side (admin). Soft-deleted users are included: an operator
// looks them up too.

// UserFilter selects users for the operator; zero fields do not filter, and the set ones all apply.
type UserFilter struct {
	// Contains matches a case-insensitive substring of the email or the Clerk user id. No index serves it:
	// Postgres walks users newest first until the page fills, so a rare term reads most of the table.
	Contains string
	// Email (case-insensitive) and ClerkUserID match exactly, each through an index: the console's lookups.
	Email, ClerkUserID string
}

// ListUsersTx lists users newest first, keyset-paginated.
func ListUsersTx(ctx context.Context, tx *gorm.DB, f UserFilter, p db.Page) ([]models.User, string, error) {
	q := tx.WithContext(ctx).Model(&models.User{})
	if f.Contains != "" {
		pattern := "%" + escapeLike(f.Contains) + "%"
		q = q.Where("(email ILIKE ? OR clerk_user_id ILIKE ?)", pattern, pattern)
	}
	if f.ClerkUserID != "" {
		q = q.Where("clerk_user_id = ?", f.ClerkUserID) // uq_users_clerk_user_id
	}
	if f.Email != "" {
		// ix_users_email covers live users only (lower(email) WHERE deleted_at IS NULL), so the soft-deleted
		// are found through ix_users_deleted_at: a set the erasure job keeps to one grace period.
		q = q.Where("((lower(email) = lower(?) AND deleted_at IS NULL) OR (lower(email) = lower(?) AND deleted_at IS NOT NULL))",
			f.Email, f.Email)
	}
	items, next, err := db.Keyset(q, p.Limit, p.Cursor, func(u models.User) (time.Time, uuid.UUID) { return u.CreatedAt, u.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list users: %w", err)
	}
	return items, next, nil
}

// UserTx returns one user by id; db.ErrNotFound when there is none.
func UserTx(ctx context.Context, tx *gorm.DB, id uuid.UUID) (models.User, error) {
	var u models.User
	if err := tx.WithContext(ctx).Where("id = ?", id).Take(&u).Error; err != nil {
		return models.User{}, fmt.Errorf("user %s: %w", id, db.Translate(err))
	}
	return u, nil
}

// CountUsersTx counts all users and the soft-deleted ones.
func CountUsersTx(ctx context.Context, tx *gorm.DB) (total, deleted int64, err error) {
	err = tx.WithContext(ctx).Raw(`SELECT count(*), count(*) FILTER (WHERE deleted_at IS NOT NULL) FROM users`).
		Row().Scan(&total, &deleted)
	if err != nil {
		return 0, 0, fmt.Errorf("count users: %w", err)
	}
	return total, deleted, nil
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// escapeLike makes s match literally inside a LIKE pattern (backslash is Postgres' default escape), so a
// search for "a_b" does not match "axb".
func escapeLike(s string) string { return likeEscaper.Replace(s) }

// UserIDByClerkIDTx returns the id of the user with clerkUserID (deleted or not), if there is one.
func UserIDByClerkIDTx(ctx context.Context, tx *gorm.DB, clerkUserID string) (uuid.UUID, bool, error) {
	var ids []uuid.UUID
	if err := tx.WithContext(ctx).Raw(`SELECT id FROM users WHERE clerk_user_id = ?`, clerkUserID).Scan(&ids).Error; err != nil {
		return uuid.Nil, false, fmt.Errorf("user of clerk id: %w", err)
	}
	if len(ids) == 0 {
		return uuid.Nil, false, nil
	}
	return ids[0], true, nil
}
