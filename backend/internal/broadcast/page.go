package broadcast

import "database/sql"

// snapshot is the options of a read spanning several statements: one consistent view, no writes.
var snapshot = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
