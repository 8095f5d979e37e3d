package account

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// DefaultDeletionGrace is the restore window of a soft-deleted account when Config.DeletionGrace is unset.
const DefaultDeletionGrace = 30 * 24 * time.Hour

func (s *Service) grace() time.Duration {
	if s.cfg.DeletionGrace > 0 {
		return s.cfg.DeletionGrace
	}
	return DefaultDeletionGrace
}

// Deletion is the outcome of a soft delete: when it happened and when the account will be erased unless
// the user signs in again before then.
type Deletion struct {
	DeletedAt       time.Time
	HardDeleteAfter time.Time
}

// Delete soft-deletes the caller's account, audits it and enqueues the "deletion scheduled" email (the
// erasure date, and that signing in again restores the account), all in one transaction, so the email goes
// exactly once per deletion. From then on every authenticated request answers ErrDeleted until a fresh
// sign-in restores the account (see Authenticate) or HardDeleteExpired erases it.
func (s *Service) Delete(ctx context.Context, a audit.Actor) (Deletion, error) {
	var at []time.Time
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// deleted_at IS NULL: of two concurrent deletes one wins; the other sees ErrDeleted, like any
		// request after the first. deleted_at starts the grace period: the clock's time.
		err := tx.Raw(`UPDATE users SET deleted_at = ?, updated_at = now()
			WHERE id = ? AND deleted_at IS NULL RETURNING deleted_at`, s.now().UTC().Truncate(time.Microsecond), a.UserID).Scan(&at).Error
		if err != nil {
			return err
		}
		if len(at) == 0 {
			return ErrDeleted
		}
		if err := s.cancelSubscriptions(ctx, tx, a.UserID); err != nil {
			return err
		}
		if err := s.mailDeletionScheduled(ctx, tx, a, at[0]); err != nil {
			return err
		}
		return audit.Write(ctx, tx, a.Entry(ActionDeleted, "user", a.ClerkUserID,
			map[string]any{"hard_delete_after": at[0].Add(s.grace()).UTC()}))
	})
	if err != nil {
		return Deletion{}, fmt.Errorf("delete account: %w", err)
	}
	return Deletion{DeletedAt: at[0], HardDeleteAfter: at[0].Add(s.grace())}, nil
}

// mailDeletionScheduled enqueues the confirmation of a deletion, keyed by the user and the deletion's time
// (microseconds, as stored): a deletion after a restore is another deletion and gets its own email. Only
// the API's deletion sends it: after Clerk's user.deleted the identity is gone, so "sign in to restore"
// would be a false promise.
func (s *Service) mailDeletionScheduled(ctx context.Context, tx *gorm.DB, a audit.Actor, deletedAt time.Time) error {
	var addrs []string
	if err := tx.WithContext(ctx).Raw(`SELECT `+mailAddressSQL+` FROM users WHERE id = ?`, a.UserID).Scan(&addrs).Error; err != nil {
		return fmt.Errorf("deletion email: %w", err)
	}
	if len(addrs) == 0 || addrs[0] == "" {
		return nil
	}
	key := fmt.Sprintf("deletion_scheduled/%s/%d", a.UserID, deletedAt.UnixMicro())
	return s.mailer.EnqueueEmailTx(ctx, tx, email.TemplateDeletionScheduled, addrs[0], key,
		email.DeletionScheduledData{Email: addrs[0], AppName: s.cfg.AppName, HardDeleteAfter: deletedAt.Add(s.grace()),
			SignInURL: s.cfg.DashboardURL})
}

// cancelSubscriptions stops a deleted account's billing: each live subscription gets a Paddle cancel job
// (at the end of the paid period: no further charge, and a restore within the period keeps access),
// enqueued in the deletion's transaction so it happens exactly when the deletion commits.
func (s *Service) cancelSubscriptions(ctx context.Context, tx *gorm.DB, userID uuid.UUID) error {
	ids, err := s.billing.LiveSubscriptionIDsTx(ctx, tx, userID)
	if err != nil {
		return fmt.Errorf("find live subscriptions: %w", err)
	}
	for _, id := range ids {
		if err := s.mailer.EnqueueCancelSubscriptionTx(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// defaultEraseBatch bounds HardDeleteExpired when the caller passes no limit.
const defaultEraseBatch = 100

// HardDeleteExpired erases up to limit users whose soft delete is older than the grace period at now, and
// returns how many it erased. In one transaction with the delete: every registered table's erasure work
// (userdata: the audit rows anonymised with the tombstone hash where the Clerk id was, every archived
// webhook delivery about the user redacted, and whatever a module registers), then per user a
// user.hard_deleted audit row naming only the hash and a tombstone in erased_users (see Erasures), so no
// late event can recreate the user. Deleting the users rows does the rest through the foreign keys (the
// tables registered as deleted by cascade or redacted by SET NULL); audit rows survive (audit_logs.user_id
// is not a foreign key). FOR UPDATE SKIP LOCKED splits the work between concurrent runs, so several
// instances never erase, or audit, a user twice.
func (s *Service) HardDeleteExpired(ctx context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		limit = defaultEraseBatch
	}
	var victims []struct {
		ID               uuid.UUID
		ClerkUserID      string
		Email            string
		PaddleCustomerID *string
		DeletedAt        time.Time
	}
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := tx.Raw(`SELECT id, clerk_user_id, email, paddle_customer_id, deleted_at FROM users WHERE deleted_at <= ?
			ORDER BY deleted_at, id LIMIT ? FOR UPDATE SKIP LOCKED`, now.Add(-s.grace()), limit).Scan(&victims).Error
		if err != nil || len(victims) == 0 {
			return err
		}
		subjects := make([]userdata.Subject, 0, len(victims))
		for _, v := range victims {
			standIn, err := s.erased.standIn(v.ClerkUserID)
			if err != nil {
				return err
			}
			subjects = append(subjects, userdata.Subject{UserID: v.ID, ClerkUserID: v.ClerkUserID, Email: v.Email,
				PaddleCustomerID: v.PaddleCustomerID, StandIn: standIn})
		}
		// Before the hard_deleted rows: the audit erasure anonymises the user's rows, and this one already
		// names only the stand-in.
		if err := s.userdata.EraseTx(ctx, tx, subjects, s.now()); err != nil {
			return err
		}
		ids := make([]uuid.UUID, 0, len(victims))
		for i, v := range victims {
			if err := audit.Write(ctx, tx, audit.Entry{Actor: audit.ActorSystem, Action: ActionHardDeleted,
				UserID: &v.ID, ResourceType: "user", ResourceID: subjects[i].StandIn,
				Details: map[string]any{"deleted_at": v.DeletedAt.UTC()}}); err != nil {
				return err
			}
			if err := s.erased.recordTx(ctx, tx, v.ClerkUserID); err != nil {
				return err
			}
			ids = append(ids, v.ID)
		}
		return tx.Exec(`DELETE FROM users WHERE id IN ?`, ids).Error
	})
	if err != nil {
		return 0, fmt.Errorf("hard delete accounts: %w", err)
	}
	return len(victims), nil
}
