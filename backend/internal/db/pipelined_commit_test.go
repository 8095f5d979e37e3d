package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// A statement that fails through GORM's query path (Raw(...).Scan, Row) goes to the connection directly,
// so the pipelined transaction does not see its error; Postgres has aborted the transaction all the same,
// and answers the COMMIT with ROLLBACK. A caller that swallowed the error must still be told at Commit:
// otherwise it reports a write that is gone (a grant acknowledged, a claim that never happened).
func TestPipelinedCommitOfAnAbortedTransactionFails(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		swallow func(tx *gorm.DB)
	}{
		{"Raw Scan", func(tx *gorm.DB) {
			var n int
			_ = tx.Raw(`SELECT 1 / 0`).Scan(&n).Error
		}},
		{"Row", func(tx *gorm.DB) {
			var n int
			_ = tx.Raw(`SELECT 1 / 0`).Row().Scan(&n)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, p := pipeDB(t)
			ctx := context.Background()
			err := p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
				if _, err := db.Exec(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 1, "lost with the abort"); err != nil {
					return err
				}
				tc.swallow(tx)
				return nil
			})
			require.ErrorContains(t, err, "rolled back", "Postgres answered the COMMIT with ROLLBACK")
			require.Zero(t, count(t, d))
			require.Zero(t, openTransactions(t, d))

			// The pool is healthy afterwards: the next transaction commits.
			require.NoError(t, p.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
				_, err := db.Exec(ctx, tx, `INSERT INTO pipe VALUES ($1, $2)`, 2, "next")
				return err
			}))
			require.Equal(t, 1, count(t, d))
		})
	}
}
