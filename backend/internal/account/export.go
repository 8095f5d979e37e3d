package account

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Export is everything we hold about one user (GDPR Art. 15 access, Art. 20 portability): the user row,
// their subscriptions, their credit ledger and the audit rows about them, oldest first.
type Export struct {
	ExportedAt    time.Time
	User          models.User
	Subscriptions []models.Subscription
	Ledger        []models.CreditTransaction
	Audit         []models.AuditLog
}

// Export reads the caller's data from one snapshot and audits the export in the same transaction.
func (s *Service) Export(ctx context.Context, a Actor) (Export, error) {
	var out Export
	// REPEATABLE READ: the reads see one moment, so the ledger matches the subscriptions beside it.
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		if out, err = readExport(tx, a); err != nil {
			return err
		}
		return audit.Write(ctx, tx, audit.Entry{Actor: a.name(), Action: ActionExported, UserID: &a.UserID,
			ResourceType: "user", ResourceID: a.ClerkUserID, IP: a.IP, Details: map[string]any{
				"subscriptions": len(out.Subscriptions), "credit_transactions": len(out.Ledger), "audit_logs": len(out.Audit)}})
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return Export{}, fmt.Errorf("export account: %w", err)
	}
	return out, nil
}

// readExport filters every table by the caller's own id in SQL: nothing of another user can reach it.
func readExport(tx *gorm.DB, a Actor) (Export, error) {
	out := Export{ExportedAt: time.Now().UTC()}
	var users []models.User
	if err := tx.Where("id = ?", a.UserID).Limit(1).Find(&users).Error; err != nil {
		return out, err
	}
	if len(users) == 0 || users[0].DeletedAt != nil {
		return out, ErrDeleted
	}
	out.User = users[0]
	for _, dst := range []any{&out.Subscriptions, &out.Ledger, &out.Audit} {
		if err := tx.Where("user_id = ?", a.UserID).Order("created_at, id").Find(dst).Error; err != nil {
			return out, err
		}
	}
	return out, nil
}
