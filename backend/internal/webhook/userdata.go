package webhook

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// UserData is webhook's entry in the user-data registry. The archive names a user by what the providers
// send (their Clerk id, address or Paddle customer), not by users.id, so the erasure finds the deliveries
// through their subjects and redacts them (RedactTx). The claims hold no personal data.
func UserData() []userdata.Table {
	return []userdata.Table{{
		Name: "webhook_events", Owner: "webhook",
		NotExported: "the providers' own deliveries: what they meant is in the sections the export has (user, subscriptions, ledger)",
		Erase: userdata.Erase{Policy: userdata.Redact,
			Reason: "the delivery's row and claim stay (a late redelivery is still a duplicate); the body, signature and error go",
			Run: func(ctx context.Context, tx *gorm.DB, users []userdata.Subject, now time.Time) error {
				var subjects []string
				for _, u := range users {
					subjects = append(subjects, u.ClerkUserID)
					if u.Email != "" {
						subjects = append(subjects, u.Email)
					}
					if u.PaddleCustomerID != nil {
						subjects = append(subjects, *u.PaddleCustomerID)
					}
				}
				_, err := RedactTx(ctx, tx, subjects, now)
				return err
			}},
	}}
}
