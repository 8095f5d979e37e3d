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

// ExportPageSize is how many rows of one table the export reads, and hands on, at a time: the memory an
// export holds whatever the length of the user's history.
const ExportPageSize = 500

// ExportWriter receives a user's export (GDPR Art. 15 access, Art. 20 portability) while it is read, so
// it can be written out as it comes rather than held whole: first Start with the user row and their
// subscriptions (a handful per user), then the credit ledger, the feedback they sent and the audit rows
// about them, each oldest first, one page (at most ExportPageSize rows) per call. Every ledger page comes
// before any feedback page, every feedback page before any audit page; a table without rows gets no call.
type ExportWriter interface {
	Start(exportedAt time.Time, u models.User, subs []models.Subscription) error
	Ledger(page []credits.Movement) error
	Feedback(page []models.Feedback) error
	Audit(page []models.AuditLog) error
}

// ExportCounts is how many rows of each table an export wrote.
type ExportCounts struct {
	Subscriptions, Ledger, Feedback, Audit int
}

// Export reads the caller's data from one snapshot, hands it to w page by page, and audits the export
// (the counts) in the same transaction. An error from w (the client went away) rolls the audit row back:
// an export that did not reach its end is not recorded as made.
func (s *Service) Export(ctx context.Context, a audit.Actor, w ExportWriter) (ExportCounts, error) {
	var n ExportCounts
	// REPEATABLE READ: every page sees one moment, so the ledger matches the subscriptions beside it, and
	// rows written while the export streams are not half in it.
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		if n, err = s.writeExport(ctx, tx, a, w); err != nil {
			return err
		}
		return audit.Write(ctx, tx, a.Entry(ActionExported, "user", a.ClerkUserID, map[string]any{
			"subscriptions": n.Subscriptions, "credit_transactions": n.Ledger, "feedback": n.Feedback,
			"audit_logs": n.Audit}))
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return ExportCounts{}, fmt.Errorf("export account: %w", err)
	}
	return n, nil
}

// writeExport asks each table's owner for the caller's rows, filtered by the caller's own id in SQL:
// nothing of another user can reach it.
func (s *Service) writeExport(ctx context.Context, tx *gorm.DB, a audit.Actor, w ExportWriter) (ExportCounts, error) {
	var n ExportCounts
	var users []models.User
	if err := tx.Where("id = ?", a.UserID).Limit(1).Find(&users).Error; err != nil {
		return n, err
	}
	if len(users) == 0 || users[0].DeletedAt != nil {
		return n, ErrDeleted
	}
	subs, err := s.billing.SubscriptionsTx(ctx, tx, a.UserID)
	if err != nil {
		return n, err
	}
	n.Subscriptions = len(subs)
	if err := w.Start(s.now().UTC(), users[0], subs); err != nil {
		return n, err
	}
	err = s.credits.WithTx(tx).EachMovement(ctx, a.UserID, ExportPageSize, func(p []credits.Movement) error {
		n.Ledger += len(p)
		return w.Ledger(p)
	})
	if err != nil {
		return n, err
	}
	err = feedback.ForUserTx(ctx, tx, a.UserID, ExportPageSize, func(p []models.Feedback) error {
		n.Feedback += len(p)
		return w.Feedback(p)
	})
	if err != nil {
		return n, err
	}
	self := audit.Actor{ClerkUserID: a.ClerkUserID}.Name()
	err = audit.ForUserTx(ctx, tx, a.UserID, self, ExportPageSize, func(p []models.AuditLog) error {
		n.Audit += len(p)
		return w.Audit(p)
	})
	return n, err
}
