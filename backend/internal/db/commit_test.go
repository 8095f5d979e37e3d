package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// QueryRowsAndCommit sends the held-back writes, its rows and the COMMIT together; the transaction's own
// Commit then does nothing, and a failure rolls everything back.
func TestQueryRowsAndCommit(t *testing.T) {
	t.Parallel()
	d, p := pipeDB(t)
	ctx := context.Background()
	err := p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 1, "held"))
		var id int
		committed, err := db.QueryRowsAndCommit(ctx, tx, &db.Row{SQL: `INSERT INTO pipe VALUES ($1, $2) RETURNING id`, Args: []any{2, "last"}, Dest: []any{&id}})
		require.True(t, committed)
		require.Equal(t, 2, id)
		return err
	})
	require.NoError(t, err)
	require.Equal(t, 2, count(t, d))

	err = p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		require.NoError(t, db.ExecLater(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 3, "held"))
		_, err := db.QueryRowsAndCommit(ctx, tx, &db.Row{SQL: `INSERT INTO pipe VALUES ($1, $2) RETURNING id`, Args: []any{1, "taken"}, Dest: []any{new(int)}})
		return err
	})
	require.Error(t, err)
	require.Equal(t, 2, count(t, d), "the held-back row went with the failure")
	require.Zero(t, openTransactions(t, d))

	// Outside a Pipelined transaction it only queries; the caller commits.
	require.NoError(t, d.Gorm.Transaction(func(tx *gorm.DB) error {
		committed, err := db.QueryRowsAndCommit(ctx, tx, &db.Row{SQL: `INSERT INTO pipe VALUES ($1, $2) RETURNING id`, Args: []any{4, "plain"}, Dest: []any{new(int)}})
		require.False(t, committed)
		return err
	}))
	require.Equal(t, 3, count(t, d))
}
