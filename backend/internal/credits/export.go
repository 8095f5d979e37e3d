package credits

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// EachMovementTx walks all of the user's movements oldest first, in pages of at most size, through tx (the
// GDPR export, which streams a ledger of any length holding one page at a time; see db.Walk).
func EachMovementTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, size int, each func([]Movement) error) error {
	err := db.Walk(func() *gorm.DB {
		return tx.WithContext(ctx).Table("credit_transactions").Select(columns).Where("user_id = ?", userID)
	}, size, func(m Movement) (time.Time, uuid.UUID) { return m.CreatedAt, m.ID }, each)
	if err != nil {
		return wrap("credit history", err)
	}
	return nil
}
