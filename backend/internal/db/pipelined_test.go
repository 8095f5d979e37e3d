package db_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// pipeDB is a test database with a scratch table and its Pipelined handle.
func pipeDB(t *testing.T) (*pgtest.DB, *gorm.DB) {
	t.Helper()
	d := pgtest.New(t)
	require.NoError(t, d.Gorm.Exec(`CREATE TABLE pipe (id int PRIMARY KEY, note text NOT NULL)`).Error)
	return d, db.Pipelined(d.Gorm)
}

func count(t *testing.T, d *pgtest.DB) int {
	t.Helper()
	var n int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM pipe`).Scan(&n).Error)
	return n
}

// openTransactions counts sessions of the test database left inside a transaction: a pipelined
// connection handed back to the pool mid-transaction would show here.
func openTransactions(t *testing.T, d *pgtest.DB) int {
	t.Helper()
	var n int
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&n).Error)
	return n
}

func TestPipelinedTransactionRunsInOrderAndCommits(t *testing.T) {
	t.Parallel()
	d, p := pipeDB(t)
	ctx := context.Background()
	err := p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var id int
		// Goes out with the held-back BEGIN.
		require.NoError(t, db.QueryRow(ctx, tx, `INSERT INTO pipe VALUES ($1, $2) RETURNING id`, []any{1, "first"}, &id))
		require.Equal(t, 1, id)
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 2, "held"))
		// A GORM query flushes what is held back first, so it sees the held-back row.
		var n int
		require.NoError(t, tx.Raw(`SELECT count(*) FROM pipe`).Scan(&n).Error)
		require.Equal(t, 2, n)
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 3, "with the commit"))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 3, count(t, d))
	require.Zero(t, openTransactions(t, d))
}

// A held-back write that fails fails the transaction at COMMIT, and everything rolls back with it; the
// connection does not go back to the pool inside the aborted transaction.
func TestPipelinedHeldBackFailureRollsBackEverything(t *testing.T) {
	t.Parallel()
	d, p := pipeDB(t)
	ctx := context.Background()
	err := p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := db.Exec(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 1, "ran"); err != nil {
			return err
		}
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 1, "duplicate key"))
		return nil
	})
	require.ErrorIs(t, db.Translate(err), db.ErrDuplicate)
	require.Zero(t, count(t, d))
	require.Zero(t, openTransactions(t, d))

	// Held back, then the next statement: that statement reports the failure.
	err = p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, NULL)`, 5))
		_, err := db.Exec(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 6, "after")
		return err
	})
	require.Error(t, err)
	require.Zero(t, count(t, d))
	require.Zero(t, openTransactions(t, d))
}

// GORM's nested Transaction is a SAVEPOINT: a write held back inside a nested transaction that rolls back
// goes out before the ROLLBACK TO, so it is undone with it.
func TestPipelinedSavepointUndoesHeldBackWrites(t *testing.T) {
	t.Parallel()
	d, p := pipeDB(t)
	ctx := context.Background()
	errInner := errors.New("inner fails")
	err := p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 1, "outer"))
		inner := tx.Transaction(func(tx2 *gorm.DB) error {
			require.NoError(t, db.ExecLater(ctx, tx2, `INSERT INTO pipe VALUES ($1, $2)`, 2, "inner"))
			return errInner
		})
		require.ErrorIs(t, inner, errInner)
		return nil
	})
	require.NoError(t, err)
	var notes []string
	require.NoError(t, d.Gorm.Raw(`SELECT note FROM pipe ORDER BY id`).Scan(&notes).Error)
	require.Equal(t, []string{"outer"}, notes)
}

// A transaction that never sent a statement sends nothing to end it, and a rolled-back one leaves nothing.
func TestPipelinedRollback(t *testing.T) {
	t.Parallel()
	d, p := pipeDB(t)
	ctx := context.Background()
	errStop := errors.New("stop")
	require.ErrorIs(t, p.WithContext(ctx).Transaction(func(*gorm.DB) error { return errStop }), errStop)
	require.NoError(t, p.WithContext(ctx).Transaction(func(*gorm.DB) error { return nil }))
	err := p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := db.Exec(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 1, "rolled back"); err != nil {
			return err
		}
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 2, "never sent"))
		return errStop
	})
	require.ErrorIs(t, err, errStop)
	require.Zero(t, count(t, d))
	require.Zero(t, openTransactions(t, d))
	// Outside a transaction the handle is the pool, and ExecLater runs at once.
	require.NoError(t, db.ExecLater(ctx, p, `INSERT INTO pipe VALUES ($1, $2)`, 3, "now"))
	require.Equal(t, 1, count(t, d))
}

// Behind PgBouncer (DB_SIMPLE_PROTOCOL) pgx sends a batch as one multi-statement simple query: the same
// order, the same transaction.
func TestPipelinedUnderSimpleProtocol(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	require.NoError(t, d.Gorm.Exec(`CREATE TABLE pipe (id int PRIMARY KEY, note text NOT NULL)`).Error)
	ctx := context.Background()
	simple, err := db.Open(ctx, db.Config{URL: d.URL, MaxConns: 4, SimpleProtocol: true}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close(simple) })
	p := db.Pipelined(simple)
	err = p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var id int
		require.NoError(t, db.QueryRow(ctx, tx, `INSERT INTO pipe VALUES ($1, $2) RETURNING id`, []any{1, "it's quoted"}, &id))
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 2, "held"))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, 2, count(t, d))
	err = p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 3, "rolled back"))
		return db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 1, "duplicate")
	})
	require.ErrorIs(t, db.Translate(err), db.ErrDuplicate)
	require.Equal(t, 2, count(t, d))
	require.Zero(t, openTransactions(t, d))
}
