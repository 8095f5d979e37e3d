package account

import (
	"context"

	"gorm.io/gorm"
)

// RecordErasureTx writes clerkUserID's tombstone as the hard delete does, for tests that stage an erasure
// by hand (to hold it open while something races it).
func RecordErasureTx(ctx context.Context, tx *gorm.DB, e Erasures, clerkUserID string) error {
	return e.recordTx(ctx, tx, clerkUserID)
}
