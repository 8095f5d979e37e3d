package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"
)

// QueryRowsAndCommit is QueryRows followed by COMMIT, for the last statements of a transaction: in a
// Pipelined transaction the held-back writes, rows and the COMMIT go out in one round trip (the
// transaction's Commit then has nothing left to do), so a transaction of one write round costs one round
// trip less. committed reports whether it committed; on any other handle it runs QueryRows only and the
// caller's commit follows as usual. An error rolls the transaction back, as a failed Commit does.
func QueryRowsAndCommit(ctx context.Context, gdb *gorm.DB, rows ...*Row) (committed bool, err error) {
	t, ok := gdb.Statement.ConnPool.(*pipelinedTx)
	if !ok {
		return false, QueryRows(ctx, gdb, rows...)
	}
	for _, r := range rows {
		pgArgs(r.Args)
	}
	stmts := make([]heldStmt, 0, len(rows)+1)
	for _, r := range rows {
		stmts = append(stmts, heldStmt{r.SQL, r.Args})
	}
	stmts = append(stmts, heldStmt{query: "COMMIT"})
	err = t.send(ctx, func(br pgx.BatchResults) error {
		for _, r := range rows {
			if err := scanRow(br.QueryRow().Scan(r.Dest...), r); err != nil {
				return err
			}
		}
		tag, err := br.Exec()
		if err == nil && tag.String() != "COMMIT" {
			err = errors.New("commit: the transaction was rolled back")
		}
		return err
	}, stmts...)
	if err != nil {
		return false, t.end(fmt.Errorf("commit: %w", errors.Join(err, t.rollback())))
	}
	t.committed = true
	return true, t.end(nil)
}
