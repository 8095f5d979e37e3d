package account

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/feedback"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Export is everything we hold about one user (GDPR Art. 15 access, Art. 20 portability): the user row,
// their subscriptions, their credit ledger, the feedback they sent and the audit rows about them, oldest
// first.
type Export struct {
	ExportedAt    time.Time
	User          models.User
	Subscriptions []models.Subscription
	Ledger        []credits.Movement
	Feedback      []models.Feedback
	Audit         []models.AuditLog
}

// Export reads the caller's data from one snapshot and audits the export in the same transaction.
func (s *Service) Export(ctx context.Context, a audit.Actor) (Export, error) {
	var out Export
	// REPEATABLE READ: the reads see one moment, so the ledger matches the subscriptions beside it.
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		if out, err = s.readExport(ctx, tx, a); err != nil {
			return err
		}
		return audit.Write(ctx, tx, a.Entry(ActionExported, "user", a.ClerkUserID, map[string]any{
			"subscriptions": len(out.Subscriptions), "credit_transactions": len(out.Ledger), "feedback": len(out.Feedback),
			"audit_logs": len(out.Audit)}))
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return Export{}, fmt.Errorf("export account: %w", err)
	}
	return out, nil
}

// readExport asks each table's owner for the caller's rows, filtered by the caller's own id in SQL: nothing
// of another user can reach it.
func (s *Service) readExport(ctx context.Context, tx *gorm.DB, a audit.Actor) (Export, error) {
	out := Export{ExportedAt: s.now().UTC()}
	var users []models.User
	if err := tx.Where("id = ?", a.UserID).Limit(1).Find(&users).Error; err != nil {
		return out, err
	}
	if len(users) == 0 || users[0].DeletedAt != nil {
		return out, ErrDeleted
	}
	out.User = users[0]
	var err error
	if out.Subscriptions, err = s.billing.SubscriptionsTx(ctx, tx, a.UserID); err != nil {
		return out, err
	}
	if out.Ledger, err = s.credits.WithTx(tx).History(ctx, a.UserID); err != nil {
		return out, err
	}
	if out.Feedback, err = feedback.ForUserTx(ctx, tx, a.UserID); err != nil {
		return out, err
	}
	out.Audit, err = audit.ForUserTx(ctx, tx, a.UserID)
	return out, err
}
