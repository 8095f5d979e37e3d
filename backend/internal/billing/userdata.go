package billing

import (
	"context"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// UserData is billing's entry in the user-data registry: the subscriptions are exported whole (a handful
// per user) and go with the user.
func UserData() []userdata.Table {
	return []userdata.Table{{
		Name: "subscriptions", Owner: "billing",
		Export: &userdata.Export{Key: "subscriptions", Rows: userdata.Pages(
			func(ctx context.Context, tx *gorm.DB, u userdata.Subject, _ int, page func([]models.Subscription) error) error {
				subs, err := SubscriptionsTx(ctx, tx, u.UserID)
				if err != nil || len(subs) == 0 {
					return err
				}
				return page(subs)
			})},
		Erase: userdata.Erase{Policy: userdata.Delete},
	}}
}
