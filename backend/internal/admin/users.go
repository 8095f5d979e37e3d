package admin

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// LedgerSize is how many of a user's newest ledger movements UserDetail carries.
const LedgerSize = 50

// UserFilter selects users. Query, when set, matches a case-insensitive substring of the e-mail or the
// Clerk user id (a walk of the table: account.UserFilter); Email and ClerkUserID match exactly through an
// index. Soft-deleted users are included: an operator looks them up too.
type UserFilter struct {
	Query              string
	Email, ClerkUserID string
	Page
}

// UserDetail is one user with their subscriptions (newest first) and ledger.
type UserDetail struct {
	User          models.User
	Subscriptions []models.Subscription
	// Items are each subscription's items (plan, add-ons, one-time charges), by subscription row id.
	Items   map[uuid.UUID][]models.SubscriptionItem
	Balance int
	// Buckets are where the balance sits, in burn order (what a spend takes first comes first): the
	// buckets that hold credits or debt and have not expired, so their remaining amounts sum to Balance.
	Buckets []credits.Bucket
	// Movements are the newest LedgerSize ledger rows, newest first.
	Movements []credits.Movement
}

// Users lists users newest first.
func (s *Service) Users(ctx context.Context, f UserFilter) ([]models.User, string, error) {
	return account.ListUsersTx(ctx, s.db, account.UserFilter{Contains: f.Query, Email: f.Email, ClerkUserID: f.ClerkUserID}, f.Page)
}

// User returns one user with subscriptions and ledger; db.ErrNotFound when there is no such user. One
// read-only snapshot, so the balance is the sum of exactly the ledger the movements come from; each part
// comes from its table's owner.
func (s *Service) User(ctx context.Context, id uuid.UUID) (UserDetail, error) {
	var d UserDetail
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		if d.User, err = account.UserTx(ctx, tx, id); err != nil {
			return err
		}
		if d.Subscriptions, err = billing.SubscriptionsTx(ctx, tx, id); err != nil {
			return err
		}
		slices.Reverse(d.Subscriptions) // newest first
		ids := make([]uuid.UUID, len(d.Subscriptions))
		for i, sub := range d.Subscriptions {
			ids[i] = sub.ID
		}
		if d.Items, err = billing.SubscriptionItemsTx(ctx, tx, ids); err != nil {
			return err
		}
		ledger := s.ledger.WithTx(tx)
		if d.Movements, _, err = ledger.List(ctx, id, LedgerSize, ""); err != nil {
			return err
		}
		if d.Balance, err = ledger.Balance(ctx, id); err != nil {
			return err
		}
		d.Buckets, err = liveBuckets(ctx, ledger, id)
		return err
	}, snapshot)
	if err != nil {
		return UserDetail{}, fmt.Errorf("admin user %s: %w", id, err)
	}
	return d, nil
}

// liveBuckets are the user's buckets that count in the balance: a bucket past its expiry but not yet
// written off by the expiry job is left out, as the balance leaves it out.
func liveBuckets(ctx context.Context, ledger *credits.Service, id uuid.UUID) ([]credits.Bucket, error) {
	all, err := ledger.Buckets(ctx, id, false)
	if err != nil {
		return nil, err
	}
	now := ledger.Now()
	live := all[:0]
	for _, b := range all {
		if !b.Expired(now) {
			live = append(live, b)
		}
	}
	return live, nil
}
