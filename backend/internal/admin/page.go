package admin

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// snapshot is the options of a read that spans several statements: one consistent view, no writes.
var snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}

// Page selects one page of a list (db.Page).
type Page = db.Page

// list runs q (one table with created_at and id columns, filters applied) newest first with keyset
// pagination (db.Keyset). key reads a row's (created_at, id) to build the next cursor.
func list[T any](q *gorm.DB, p Page, key func(T) (time.Time, uuid.UUID)) ([]T, string, error) {
	items, next, err := db.Keyset(q, p.Limit, p.Cursor, key)
	if errors.Is(err, db.ErrBadCursor) {
		return nil, "", fmt.Errorf("decode cursor: %w", ErrBadCursor)
	}
	return items, next, err
}
