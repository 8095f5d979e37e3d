package admin

import (
	"database/sql"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// snapshot is the options of a read that spans several statements: one consistent view, no writes.
var snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}

// Page selects one page of a list (db.Page); a cursor this service did not hand out is ErrBadCursor.
type Page = db.Page
