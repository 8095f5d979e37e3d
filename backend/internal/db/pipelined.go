package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// Pipelined returns a handle on gdb whose transactions save round trips without changing what runs or in
// which order. BEGIN is not sent on its own: it goes in front of the transaction's first statement. A write
// whose result nobody reads (ExecLater: an audit row, a job) is held back and sent in front of the next
// statement, or with COMMIT. Each send is one pgx batch on the transaction's connection, so Postgres runs
// exactly the statements it would have, in the same order, in one transaction; only a held-back write's
// error surfaces later, at the next statement or at Commit, and aborts the transaction all the same.
//
// Statements run through GORM's query path (Raw(...).Scan, Find) flush what is held back first and then
// run as usual, so they cost what they did; Exec, QueryRow and ExecLater of this package are the ones
// that ride along. The webhook pipeline runs its deliveries on such a handle: a duplicate costs two round
// trips instead of three, a new user.created several fewer (docs/benchmarks.md).
//
// A handle not on a database/sql pool (a transaction already) is returned as it is.
func Pipelined(gdb *gorm.DB) *gorm.DB {
	sqlDB, ok := gdb.Statement.ConnPool.(*sql.DB)
	if !ok {
		return gdb
	}
	// Session with a Context clones the Statement, so the new ConnPool does not leak into gdb.
	s := gdb.Session(&gorm.Session{Context: context.Background()})
	s.Statement.ConnPool = pipelinedPool{sqlDB}
	return s
}

// pipelinedPool is gdb's pool, whose BeginTx hands out pipelinedTx. Outside transactions it is the pool.
type pipelinedPool struct{ *sql.DB }

// BeginTx takes a connection and holds BEGIN back. Non-default options (isolation, read-only) get a
// plain database/sql transaction.
func (p pipelinedPool) BeginTx(ctx context.Context, opts *sql.TxOptions) (gorm.ConnPool, error) {
	if opts != nil && (opts.Isolation != sql.LevelDefault || opts.ReadOnly) {
		return p.DB.BeginTx(ctx, opts)
	}
	conn, err := p.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &pipelinedTx{ctx: ctx, conn: conn, held: []heldStmt{{query: "BEGIN"}}}, nil
}

// GetDBConn lets gorm's DB() find the pool.
func (p pipelinedPool) GetDBConn() (*sql.DB, error) { return p.DB, nil }

type heldStmt struct {
	query string
	args  []any
}

// pipelinedTx is one transaction on one connection. database/sql does not know the connection is in a
// transaction, so the connection goes back to the pool only after COMMIT or ROLLBACK succeeded, and is
// discarded otherwise.
type pipelinedTx struct {
	ctx  context.Context
	conn *sql.Conn
	held []heldStmt
	// sent: BEGIN went out, so ending the transaction needs a COMMIT or ROLLBACK.
	sent bool
	// err: a statement of a batch failed; Postgres has aborted the transaction.
	err  error
	done bool
	// committed: QueryRowsAndCommit sent the COMMIT; the caller's Commit has nothing left to do.
	committed bool
}

var errTxDone = sql.ErrTxDone

// send runs the held statements and then last (if any) in one batch, and hands the results of last to read.
func (t *pipelinedTx) send(ctx context.Context, read func(pgx.BatchResults) error, last ...heldStmt) error {
	switch {
	case t.done:
		return errTxDone
	case t.err != nil:
		return t.err
	case len(t.held) == 0 && len(last) == 0:
		return nil
	}
	b := &pgx.Batch{}
	for _, h := range t.held {
		b.Queue(h.query, h.args...)
	}
	for _, h := range last {
		b.Queue(h.query, h.args...)
	}
	held := len(t.held)
	t.held = t.held[:0]
	t.sent = true
	err := t.conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("pipelined transaction needs a pgx connection, not %T", dc)
		}
		br := sc.Conn().SendBatch(ctx, b)
		var err error
		for range held {
			if _, err = br.Exec(); err != nil {
				err = fmt.Errorf("held-back statement: %w", err)
				break
			}
		}
		if err == nil && read != nil {
			err = read(br)
		}
		return errors.Join(err, br.Close())
	})
	if err != nil && !errors.Is(err, sql.ErrNoRows) { // no row is an answer; the transaction goes on
		t.err = err
	}
	return err
}

func (t *pipelinedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	var n int64
	err := t.send(ctx, func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		n = tag.RowsAffected()
		return err
	}, heldStmt{query, args})
	if err != nil {
		return nil, err
	}
	return driver.RowsAffected(n), nil
}

// queryRows runs rows after what is held back, in the same batch, scanning each one's row into its Dest.
func (t *pipelinedTx) queryRows(ctx context.Context, rows []*Row) error {
	stmts := make([]heldStmt, len(rows))
	for i, r := range rows {
		stmts[i] = heldStmt{r.SQL, r.Args}
	}
	return t.send(ctx, func(br pgx.BatchResults) error {
		for _, r := range rows {
			if err := scanRow(br.QueryRow().Scan(r.Dest...), r); err != nil {
				return err
			}
		}
		return nil
	}, stmts...)
}

func (t *pipelinedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := t.send(ctx, nil); err != nil {
		return nil, err
	}
	return t.conn.QueryContext(ctx, query, args...)
}

// QueryRowContext flushes first; if that failed, the query itself fails (the transaction is aborted, or
// the connection gone) and the *sql.Row carries that error, while Commit reports the first one.
func (t *pipelinedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	_ = t.send(ctx, nil)
	return t.conn.QueryRowContext(ctx, query, args...)
}

func (t *pipelinedTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	if err := t.send(ctx, nil); err != nil {
		return nil, err
	}
	return t.conn.PrepareContext(ctx, query)
}

// Commit sends what is held back with COMMIT. Postgres answers a COMMIT of an aborted transaction with
// ROLLBACK and no error; that is reported as the failure it is.
func (t *pipelinedTx) Commit() error {
	if t.committed {
		return nil
	}
	if t.done {
		return errTxDone
	}
	if !t.sent && len(t.held) == 1 {
		return t.end(nil) // nothing ran: there is nothing to commit
	}
	err := t.send(t.ctx, func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		if err == nil && tag.String() != "COMMIT" {
			err = errors.New("commit: the transaction was rolled back")
		}
		return err
	}, heldStmt{query: "COMMIT"})
	if err != nil {
		return t.end(fmt.Errorf("commit: %w", errors.Join(err, t.rollback())))
	}
	return t.end(nil)
}

// Rollback drops what is held back and rolls back what ran.
func (t *pipelinedTx) Rollback() error {
	if t.done {
		return errTxDone
	}
	if !t.sent {
		return t.end(nil)
	}
	return t.end(t.rollback())
}

func (t *pipelinedTx) rollback() error {
	_, err := t.conn.ExecContext(context.WithoutCancel(t.ctx), "ROLLBACK")
	return err
}

// end releases the connection: to the pool when its transaction is over (err nil), otherwise discarded,
// so nobody inherits an open or aborted transaction.
func (t *pipelinedTx) end(err error) error {
	t.done = true
	if err != nil {
		_ = t.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return errors.Join(err, t.conn.Close())
}

// ExecLater runs a write whose result the caller does not need: in a Pipelined transaction it is held back
// and sent with the next statement or the COMMIT (its error, if any, fails that); anywhere else it runs
// now.
func ExecLater(ctx context.Context, gdb *gorm.DB, query string, args ...any) error {
	if t, ok := gdb.Statement.ConnPool.(*pipelinedTx); ok && !t.done && t.err == nil {
		pgArgs(args)
		t.held = append(t.held, heldStmt{query, args})
		return nil
	}
	_, err := Exec(ctx, gdb, query, args...)
	return err
}
