package audit

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// UserData is audit's entry in the user-data registry: the rows about the user are exported (with an IP
// only where the user caused the row) and, at erasure, anonymised rather than deleted.
func UserData() []userdata.Table {
	return []userdata.Table{{
		Name: "audit_logs", Owner: "audit",
		Export: &userdata.Export{Key: "audit_logs", Rows: userdata.Pages(
			func(ctx context.Context, tx *gorm.DB, u userdata.Subject, size int, page func([]models.AuditLog) error) error {
				return ForUserTx(ctx, tx, u.UserID, Actor{ClerkUserID: u.ClerkUserID}.Name(), size, page)
			})},
		Erase: userdata.Erase{Policy: userdata.Redact,
			Reason: "the processing record (GDPR Art. 30) outlives the user: IPs dropped, the Clerk id and address replaced by the tombstone hash",
			Run: func(ctx context.Context, tx *gorm.DB, users []userdata.Subject, _ time.Time) error {
				for _, u := range users {
					if err := ForgetUserTx(ctx, tx, u.UserID, u.ClerkUserID, u.Email, u.StandIn); err != nil {
						return err
					}
				}
				return nil
			}},
	}}
}
