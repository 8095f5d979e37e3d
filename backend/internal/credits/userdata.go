package credits

import (
	"context"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// UserData is credits' entry in the user-data registry: the ledger is exported movement by movement;
// the balance and buckets are derived from it. All of it goes with the user (ON DELETE CASCADE): the
// ledger is not kept for accounting, because the money side of a purchase is Paddle's record.
func UserData() []userdata.Table {
	derived := "derived from credit_transactions, which the export holds movement by movement"
	return []userdata.Table{
		{Name: "credit_transactions", Owner: "credits",
			Export: &userdata.Export{Key: "credit_transactions", Rows: userdata.Pages(
				func(ctx context.Context, tx *gorm.DB, u userdata.Subject, size int, page func([]Movement) error) error {
					return EachMovementTx(ctx, tx, u.UserID, size, page)
				})},
			Erase: userdata.Erase{Policy: userdata.Delete}},
		{Name: "credit_balances", Owner: "credits", NotExported: derived, Erase: userdata.Erase{Policy: userdata.Delete}},
		{Name: "credit_buckets", Owner: "credits", NotExported: derived, Erase: userdata.Erase{Policy: userdata.Delete}},
	}
}
