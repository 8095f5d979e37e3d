package db

import (
	"context"
	"database/sql"
	"errors"
	"sync"
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
	r := &Row{SQL: query, Args: args, Dest: dest}
	if err := QueryRows(ctx, gdb, r); err != nil {
		return err
	}
	if r.NoRow {
		return sql.ErrNoRows
	}
	return nil
}

// Row is one statement of QueryRows: it returns at most one row, scanned into Dest; NoRow reports that it
// returned none (an answer, not an error).
type Row struct {
	SQL   string
	Args  []any
	Dest  []any
	NoRow bool
}

// QueryRows runs rows in order, and stops at the first that fails. In a Pipelined transaction they go out
// in one round trip, with whatever is held back in front of them: for statements that do not need each
// other's results to be written (a later one may read what an earlier one wrote: it runs after it).
func QueryRows(ctx context.Context, gdb *gorm.DB, rows ...*Row) error {
	for _, r := range rows {
		pgArgs(r.Args)
	}
	begin := time.Now()
	var err error
	if t, ok := gdb.Statement.ConnPool.(*pipelinedTx); ok {
		err = t.queryRows(ctx, rows)
	} else {
		for _, r := range rows {
			if err = scanRow(gdb.Statement.ConnPool.QueryRowContext(ctx, r.SQL, r.Args...).Scan(sqlDest(r.Dest)...), r); err != nil {
				break
			}
		}
	}
	if err != nil {
		gdb.Logger.Trace(ctx, begin, func() (string, int64) { return rows[0].SQL, 0 }, err)
	} else if time.Since(begin) > slowQuery {
		gdb.Logger.Trace(ctx, begin, func() (string, int64) { return rows[0].SQL, int64(len(rows)) }, nil)
	}
	return err
}

// scanRow records a missing row on r instead of failing.
func scanRow(err error, r *Row) error {
	if errors.Is(err, sql.ErrNoRows) {
		r.NoRow = true
		return nil
	}
	return err
}

// sqlDest wraps the destinations database/sql cannot fill itself (a Postgres array into a Go slice) in
// pgx's scanner, so a statement scans the same into the same variables on the pool as in a pipelined
// transaction, where pgx scans natively.
func sqlDest(dest []any) []any {
	out := dest
	for i, d := range dest {
		switch d.(type) {
		case *[]string, *[]int64, *[]int32, *[]int, *[]uuid.UUID, *[]pgtype.UUID:
			if &out[0] == &dest[0] {
				out = append([]any(nil), dest...)
			}
			out[i] = arrayScanner{d}
		}
	}
	return out
}

// arrayScanner scans through pgx's type map, which caches scan plans and is not safe for concurrent use:
// one mutex, held for the decoding of one value.
type arrayScanner struct{ dest any }

var (
	scanMu    sync.Mutex
	scanTypes = pgtype.NewMap()
)

func (a arrayScanner) Scan(src any) error {
	scanMu.Lock()
	defer scanMu.Unlock()
	return scanTypes.SQLScanner(a.dest).Scan(src)
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
