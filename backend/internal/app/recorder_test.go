package app

import (
	"context"
	"database/sql"
	"sync"

	"gorm.io/gorm"
)

// stmtRecorder wraps the App's connection pool and records every statement it is sent, BEGIN and COMMIT
// included, with its arguments: one entry per round trip, since every call on a database/sql pool or
// transaction is one. Installed with record, it sees GORM's statements and the raw ones of db.QueryRow
// and db.Exec alike (both go through the handle's ConnPool). A db.Pipelined transaction needs a *sql.DB
// under it, so under the recorder it runs unpipelined: record only paths that are not pipelined.
type stmtRecorder struct {
	gorm.ConnPool
	mu    sync.Mutex
	stmts []recordedStmt
}

type recordedStmt struct {
	SQL  string
	Args []any
}

// record installs a recorder on a's handle until the returned stop is called, which restores the pool
// and returns what was sent. The services share that handle, so every request in between is recorded;
// the caller sends nothing else meanwhile.
func record(a *App) (stop func() []recordedStmt) {
	r := &stmtRecorder{ConnPool: a.db.Statement.ConnPool}
	a.db.Statement.ConnPool = r
	return func() []recordedStmt {
		a.db.Statement.ConnPool = r.ConnPool
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.stmts
	}
}

func (r *stmtRecorder) add(query string, args []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stmts = append(r.stmts, recordedStmt{SQL: query, Args: append([]any(nil), args...)})
}

func (r *stmtRecorder) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	r.add(query, args)
	return r.ConnPool.ExecContext(ctx, query, args...)
}

func (r *stmtRecorder) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	r.add(query, args)
	return r.ConnPool.QueryContext(ctx, query, args...)
}

func (r *stmtRecorder) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	r.add(query, args)
	return r.ConnPool.QueryRowContext(ctx, query, args...)
}

// BeginTx makes GORM's transactions recorded transactions (gorm.ConnPoolBeginner).
func (r *stmtRecorder) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	tx, err := r.ConnPool.(*sql.DB).BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	r.add("BEGIN", nil)
	return &recordedTx{Tx: tx, r: r}, nil
}

// recordedTx is a transaction whose statements, COMMIT and ROLLBACK are recorded.
type recordedTx struct {
	*sql.Tx
	r *stmtRecorder
}

func (t *recordedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.r.add(query, args)
	return t.Tx.ExecContext(ctx, query, args...)
}

func (t *recordedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.r.add(query, args)
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t *recordedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	t.r.add(query, args)
	return t.Tx.QueryRowContext(ctx, query, args...)
}

func (t *recordedTx) Commit() error {
	t.r.add("COMMIT", nil)
	return t.Tx.Commit()
}

func (t *recordedTx) Rollback() error {
	t.r.add("ROLLBACK", nil)
	return t.Tx.Rollback()
}
