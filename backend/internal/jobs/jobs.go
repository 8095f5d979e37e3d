// Package jobs runs background work on River, in the same Postgres as everything else: a job inserted in a
// transaction exists if and only if that transaction commits, which is how effects outside the database
// (email) stay exactly-once with the webhook claim that caused them.
package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Queue inserts jobs inside callers' GORM transactions. A plain job (no unique key, not scheduled: every
// job a webhook enqueues) is written as River's own InsertTx would write it, one river_job row in the state
// River's workers fetch ("available") plus River's insert notification so an idle worker wakes at once,
// but with one statement of its own rather than through River's client on database/sql: that client's
// array encoding was a fifth of the server's CPU per new-user delivery (docs/benchmarks.md).
// TestQueuedJobsAreWorkedByRiver holds the row to what River's workers run. Jobs with River's unique keys
// (the broadcast jobs) go through River's insert-only client, which computes them.
type Queue struct {
	client *river.Client[*sql.Tx]
	notify bool

	mu       sync.Mutex
	notified map[string]time.Time // per queue: when this process last sent an insert notification
}

// NewQueue builds the queue on GORM's pool. notify is false where workers poll instead of listening
// (PgBouncer's transaction pooling: River runs poll-only there), so no notification is sent for nobody.
func NewQueue(sqlDB *sql.DB, notify bool) (*Queue, error) {
	c, err := river.NewClient(riverdatabasesql.New(sqlDB), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	return &Queue{client: c, notify: notify, notified: map[string]time.Time{}}, nil
}

// insertSQL is River's single-row insert (its JobInsertFastMany with one element and no unique key),
// followed by River's insert notification on the topic River's producers listen on when $5 says so.
const insertSQL = `WITH job AS (
		INSERT INTO river_job (args, kind, max_attempts, priority, queue, state, metadata, tags)
		VALUES ($1::jsonb, $2, $3, $4, $5, 'available', '{}', '{}') RETURNING queue)
	SELECT CASE WHEN $6::boolean THEN pg_notify(current_schema() || '.river_insert', json_build_object('queue', queue)::text) END
	FROM job`

var errNoTx = errors.New("jobs: enqueue needs the caller's transaction")

// InsertTx inserts args as a job in tx's transaction. The args' InsertOpts choose the queue, attempts and
// priority with River's defaults; a job with options the plain path does not write (a unique key, a
// schedule, tags, metadata) goes through River's client instead.
func (q *Queue) InsertTx(ctx context.Context, tx *gorm.DB, args river.JobArgs) error {
	var opts river.InsertOpts
	if o, ok := args.(river.JobArgsWithInsertOpts); ok {
		opts = o.InsertOpts()
	}
	if !reflect.ValueOf(opts.UniqueOpts).IsZero() || !opts.ScheduledAt.IsZero() || len(opts.Tags) > 0 || len(opts.Metadata) > 0 {
		sqlTx, err := sqlTxOf(tx)
		if err == nil {
			_, err = q.client.InsertTx(ctx, sqlTx, args, nil)
		}
		if err != nil {
			return fmt.Errorf("enqueue %s: %w", args.Kind(), err)
		}
		return nil
	}
	if _, inTx := tx.Statement.ConnPool.(gorm.TxCommitter); !inTx {
		return fmt.Errorf("enqueue %s: %w", args.Kind(), errNoTx)
	}
	encoded, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("enqueue %s: %w", args.Kind(), err)
	}
	queue := cmp.Or(opts.Queue, river.QueueDefault)
	// The args go as text: under DB_SIMPLE_PROTOCOL pgx would inline []byte as a bytea literal.
	// ExecLater: nothing reads the job back in the transaction (see db.Pipelined).
	err = db.ExecLater(ctx, tx, insertSQL, string(encoded), args.Kind(), cmp.Or(opts.MaxAttempts, river.MaxAttemptsDefault),
		cmp.Or(opts.Priority, river.PriorityDefault), queue, q.shouldNotify(queue))
	if err != nil {
		return fmt.Errorf("enqueue %s: %w", args.Kind(), err)
	}
	return nil
}

// shouldNotify limits insert notifications to one per queue per River fetch cooldown, as River's own
// client does: a worker woken by one fetches every job available by then, and each NOTIFY takes a
// database-wide lock at commit.
func (q *Queue) shouldNotify(queue string) bool {
	if !q.notify {
		return false
	}
	now := time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	if now.Sub(q.notified[queue]) < river.FetchCooldownDefault {
		return false
	}
	q.notified[queue] = now
	return true
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
