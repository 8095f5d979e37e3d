package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"gorm.io/gorm"
)

// Exec and QueryRow run one statement ($1-style placeholders) on gdb's connection, the caller's
// transaction or the pool, without GORM's statement builder, callbacks and reflection: for the few
// statements every webhook delivery runs, where that machinery cost more CPU than the statements'
// own round trips in a profile (docs/benchmarks.md). Slow statements and errors still reach GORM's
// logger, so the log looks the same either way.

// Exec runs a statement that returns no rows and reports how many it affected.
func Exec(ctx context.Context, gdb *gorm.DB, query string, args ...any) (int64, error) {
	pgArgs(args)
	begin := time.Now()
	res, err := gdb.Statement.ConnPool.ExecContext(ctx, query, args...)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	gdb.Logger.Trace(ctx, begin, func() (string, int64) { return query, n }, err)
	return n, err
}

// QueryRow runs a statement that returns at most one row and scans it into dest; a statement that
// returned no row reports sql.ErrNoRows.
func QueryRow(ctx context.Context, gdb *gorm.DB, query string, args []any, dest ...any) error {
	pgArgs(args)
	begin := time.Now()
	var err error
	if t, ok := gdb.Statement.ConnPool.(*pipelinedTx); ok {
		err = t.queryRow(ctx, query, args, dest) // in the same round trip as what is held back
	} else {
		err = gdb.Statement.ConnPool.QueryRowContext(ctx, query, args...).Scan(dest...)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return err // an answer, not a failure: not logged
	}
	gdb.Logger.Trace(ctx, begin, func() (string, int64) { return query, 1 }, err)
	return err
}

// pgArgs hands UUIDs to pgx as its own type: google/uuid's driver.Valuer would make pgx format each one as
// text and parse it back (a few percent of the server's CPU per delivery in a profile). pgtype.UUID
// encodes directly, in binary and, under DB_SIMPLE_PROTOCOL, as text.
func pgArgs(args []any) {
	for i, a := range args {
		switch v := a.(type) {
		case uuid.UUID:
			args[i] = pgtype.UUID{Bytes: v, Valid: true}
		case *uuid.UUID:
			if v == nil {
				args[i] = nil
			} else {
				args[i] = pgtype.UUID{Bytes: *v, Valid: true}
			}
		}
	}
}
