package account

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// ExportPageSize is how many rows of one table the export reads, and hands on, at a time: the memory an
// export holds whatever the length of the user's history.
const ExportPageSize = 500

// ExportWriter receives a user's export (GDPR Art. 15 access, Art. 20 portability) while it is read, so
// it can be written out as it comes rather than held whole: first Start with the user row, then for each
// exported table of the registry (userdata), in its order, Section with the table's key and Rows with its
// rows oldest first, one page (at most ExportPageSize rows) per call. A table without rows gets its
// Section and no Rows.
type ExportWriter interface {
	Start(exportedAt time.Time, u models.User) error
	Section(key string) error
	Rows(page []any) error
}

// ExportCounts is how many rows an export wrote under each section's key.
type ExportCounts map[string]int

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
		details := make(map[string]any, len(n))
		for k, v := range n {
			details[k] = v
		}
		return audit.Write(ctx, tx, a.Entry(ActionExported, "user", a.ClerkUserID, details))
	}, &sql.TxOptions{Isolation: sql.LevelRepeatableRead})
	if err != nil {
		return nil, fmt.Errorf("export account: %w", err)
	}
	return n, nil
}

// writeExport asks each registered table's owner for the caller's rows, filtered by the caller's own id
// in SQL: nothing of another user can reach it.
func (s *Service) writeExport(ctx context.Context, tx *gorm.DB, a audit.Actor, w ExportWriter) (ExportCounts, error) {
	n := ExportCounts{}
	var users []models.User
	if err := tx.Where("id = ?", a.UserID).Limit(1).Find(&users).Error; err != nil {
		return n, err
	}
	if len(users) == 0 || users[0].DeletedAt != nil {
		return n, ErrDeleted
	}
	u := users[0]
	if err := w.Start(s.now().UTC(), u); err != nil {
		return n, err
	}
	subject := userdata.Subject{UserID: u.ID, ClerkUserID: u.ClerkUserID, Email: u.Email, PaddleCustomerID: u.PaddleCustomerID}
	for _, e := range s.userdata.Exports() {
		if err := w.Section(e.Key); err != nil {
			return n, err
		}
		n[e.Key] = 0
		err := e.Rows(ctx, tx, subject, ExportPageSize, func(p []any) error {
			n[e.Key] += len(p)
			return w.Rows(p)
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
