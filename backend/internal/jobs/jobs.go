// Package jobs runs background work on River, in the same Postgres as everything else: a job inserted in a
// transaction exists if and only if that transaction commits, which is how effects outside the database
// (email) stay exactly-once with the webhook claim that caused them.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"gorm.io/gorm"
)

// Queue inserts jobs inside callers' GORM transactions. It is an insert-only River client over the same
// database/sql pool GORM uses, so it can share the caller's *sql.Tx.
type Queue struct {
	client *river.Client[*sql.Tx]
}

// NewQueue builds the insert-only client.
func NewQueue(sqlDB *sql.DB) (*Queue, error) {
	c, err := river.NewClient(riverdatabasesql.New(sqlDB), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	return &Queue{client: c}, nil
}

var errNoTx = errors.New("jobs: enqueue needs the caller's transaction")

// InsertTx inserts args as a job in tx's transaction.
func (q *Queue) InsertTx(ctx context.Context, tx *gorm.DB, args river.JobArgs) error {
	sqlTx, err := sqlTxOf(tx)
	if err != nil {
		return err
	}
	if _, err := q.client.InsertTx(ctx, sqlTx, args, nil); err != nil {
		return fmt.Errorf("enqueue %s: %w", args.Kind(), err)
	}
	return nil
}

// sqlTxOf is the *sql.Tx under a GORM transaction; a pool is refused (a job must share its caller's commit).
func sqlTxOf(tx *gorm.DB) (*sql.Tx, error) {
	sqlTx, ok := tx.Statement.ConnPool.(*sql.Tx)
	if !ok {
		return nil, errNoTx
	}
	return sqlTx, nil
}

// EnqueueEmailTx inserts an email job in tx's transaction. data is the template's input, stored as JSON.
func (q *Queue) EnqueueEmailTx(ctx context.Context, tx *gorm.DB, template, to, idempotencyKey string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("enqueue email %s: %w", template, err)
	}
	return q.InsertTx(ctx, tx, EmailArgs{Template: template, To: to, IdempotencyKey: idempotencyKey, Data: raw})
}
