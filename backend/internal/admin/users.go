package admin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// LedgerSize is how many of a user's newest ledger movements UserDetail carries.
const LedgerSize = 50

// UserFilter selects users. Query, when set, matches a case-insensitive substring of the e-mail or the
// Clerk user id. Soft-deleted users are included: an operator looks them up too.
type UserFilter struct {
	Query string
	Page
}

// UserDetail is one user with their subscriptions (newest first) and ledger.
type UserDetail struct {
	User          models.User
	Subscriptions []models.Subscription
	Balance       int
	// Movements are the newest LedgerSize ledger rows, newest first.
	Movements []credits.Movement
}

// Users lists users newest first.
func (s *Service) Users(ctx context.Context, f UserFilter) ([]models.User, string, error) {
	q := s.db.WithContext(ctx).Model(&models.User{})
	if f.Query != "" {
		pattern := "%" + escapeLike(f.Query) + "%"
		q = q.Where("(email ILIKE ? OR clerk_user_id ILIKE ?)", pattern, pattern)
	}
	items, next, err := list(q, f.Page, func(u models.User) (time.Time, uuid.UUID) { return u.CreatedAt, u.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list users: %w", err)
	}
	return items, next, nil
}

// User returns one user with subscriptions and ledger; db.ErrNotFound when there is no such user. One
// read-only snapshot, so the balance is the sum of exactly the ledger the movements come from.
func (s *Service) User(ctx context.Context, id uuid.UUID) (UserDetail, error) {
	var d UserDetail
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("id = ?", id).Take(&d.User).Error; err != nil {
			return db.Translate(err)
		}
		d.Subscriptions = []models.Subscription{}
		if err := tx.Where("user_id = ?", id).Order("created_at DESC, id DESC").Find(&d.Subscriptions).Error; err != nil {
			return err
		}
		ledger := credits.New(tx)
		var err error
		if d.Movements, _, err = ledger.List(ctx, id, LedgerSize, ""); err != nil {
			return err
		}
		d.Balance, err = ledger.Balance(ctx, id)
		return err
	}, snapshot)
	if err != nil {
		return UserDetail{}, fmt.Errorf("admin user %s: %w", id, err)
	}
	return d, nil
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// escapeLike makes s match literally inside a LIKE pattern (backslash is Postgres' default escape), so a
// search for "a_b" does not match "axb".
func escapeLike(s string) string { return likeEscaper.Replace(s) }
