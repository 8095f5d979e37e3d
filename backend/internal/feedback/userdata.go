package feedback

import (
	"context"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// UserData is feedback's entry in the user-data registry: the messages a user sent are exported and, at
// erasure, kept without their author (ON DELETE SET NULL).
func UserData() []userdata.Table {
	return []userdata.Table{{
		Name: "feedback", Owner: "feedback",
		Export: &userdata.Export{Key: "feedback", Rows: userdata.Pages(
			func(ctx context.Context, tx *gorm.DB, u userdata.Subject, size int, page func([]models.Feedback) error) error {
				return ForUserTx(ctx, tx, u.UserID, size, page)
			})},
		Erase: userdata.Erase{Policy: userdata.Redact,
			Reason: "the message stays as product feedback without its author (user_id set to NULL)"},
	}}
}
