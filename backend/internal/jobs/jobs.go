// Package jobs runs background work on River, in the same Postgres as everything else: a job inserted in a
// transaction exists if and only if that transaction commits, which is how effects outside the database
// (email) stay exactly-once with the webhook claim that caused them.
package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Queue inserts jobs inside callers' GORM transactions, as River's own InsertTx would: one river_job row
// in the state River's workers fetch ("available"), plus River's insert notification so an idle worker
// wakes at once. It writes the row with one statement of its own rather than through a River client on
// database/sql: that client's array encoding was a fifth of the server's CPU per new-user delivery
// (docs/benchmarks.md). TestQueuedJobsAreWorkedByRiver holds the row to what River's workers run.
type Queue struct {
	notify bool

	mu       sync.Mutex
	notified map[string]time.Time // per queue: when this process last sent an insert notification
}

// NewQueue builds the queue. notify is false where workers poll instead of listening (PgBouncer's
// transaction pooling: River runs poll-only there), so no notification is sent for nobody.
func NewQueue(notify bool) *Queue {
	return &Queue{notify: notify, notified: map[string]time.Time{}}
}

// insertSQL is River's single-row insert (its JobInsertFastMany with one element and no unique key),
// followed by River's insert notification on the topic River's producers listen on when $5 says so.
const insertSQL = `WITH job AS (
		INSERT INTO river_job (args, kind, max_attempts, priority, queue, state, metadata, tags)
		VALUES ($1::jsonb, $2, $3, $4, $5, 'available', '{}', '{}') RETURNING queue)
	SELECT CASE WHEN $6::boolean THEN pg_notify(current_schema() || '.river_insert', json_build_object('queue', queue)::text) END
	FROM job`

var errUnsupportedOpts = errors.New("jobs: unique, scheduled or tagged jobs go through River's client")

// InsertTx inserts args as a job in tx's transaction. The args' InsertOpts choose the queue, attempts and
// priority with River's defaults; options this path does not write are refused, not dropped.
func (q *Queue) InsertTx(ctx context.Context, tx *gorm.DB, args river.JobArgs) error {
	var opts river.InsertOpts
	if o, ok := args.(river.JobArgsWithInsertOpts); ok {
		opts = o.InsertOpts()
	}
	if !reflect.ValueOf(opts.UniqueOpts).IsZero() || !opts.ScheduledAt.IsZero() || len(opts.Tags) > 0 || len(opts.Metadata) > 0 {
		return fmt.Errorf("enqueue %s: %w", args.Kind(), errUnsupportedOpts)
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

// EnqueueEmailTx inserts an email job in tx's transaction. data is the template's input, stored as JSON.
func (q *Queue) EnqueueEmailTx(ctx context.Context, tx *gorm.DB, template, to, idempotencyKey string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("enqueue email %s: %w", template, err)
	}
	return q.InsertTx(ctx, tx, EmailArgs{Template: template, To: to, IdempotencyKey: idempotencyKey, Data: raw})
}
