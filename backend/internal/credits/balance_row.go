package credits

import (
	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// BalanceRow is Balance as a statement the caller runs itself (db.QueryRows), so it can ride in one
// round trip with the caller's own reads (usage's entitlements read the month's counters beside it). It
// scans the spendable balance into dest; a user without a balance row leaves dest untouched (0).
func (s *Service) BalanceRow(userID uuid.UUID, dest *int) *db.Row {
	return &db.Row{SQL: availableSQL, Args: []any{userID, s.now()}, Dest: []any{dest}}
}
