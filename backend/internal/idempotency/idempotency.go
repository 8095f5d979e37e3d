// Package idempotency is the Idempotency-Key convention of the app's own endpoints: a request carrying a
// key runs at most once per key and caller. Its claim, the handler's own writes and the stored response
// commit in one transaction (the handler writes through Transaction), so the same key again replays the
// stored response, a concurrent copy waits for the first and then replays it, and a failed request leaves
// nothing behind and may be retried. The HTTP side (the middleware) is httpapi's; this package owns the
// idempotency_keys table.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// ErrKeyReused means the key was used before for another request (another body, method or path).
var ErrKeyReused = errors.New("idempotency key already used for another request")

// MaxKeyLen is the longest key accepted (the column's width).
const MaxKeyLen = 255

// Request is one keyed request.
type Request struct {
	// Scope is whose key it is ("user:<id>", "worker:<fingerprint>"): two callers' keys never meet.
	Scope string
	Key   string
	// UserID is the caller's user, when a user's session sent it (the row goes with an erased user).
	UserID *uuid.UUID
	// Hash identifies the request (Hash): the same key with another hash is ErrKeyReused.
	Hash []byte
}

// Hash is the request's identity: method, path and body.
func Hash(method, path string, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(body)
	return h.Sum(nil)
}

// Response is what a handler answered, as stored and replayed.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
}

// Store runs keyed requests.
type Store struct {
	db  *gorm.DB
	now func() time.Time
}

// New returns a Store on the pool; now is the app's clock (nil: the machine's).
func New(gdb *gorm.DB, now func() time.Time) *Store {
	return &Store{db: gdb, now: clock.Or(now)}
}

// errRollback carries a response that must not be kept out of the transaction, rolling it back.
type errRollback struct{ err error }

func (e errRollback) Error() string { return "idempotent request not kept" }

const claimSQL = `INSERT INTO idempotency_keys (scope, key, user_id, request_hash, created_at) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (scope, key) DO NOTHING`

// storedSQL runs after claimSQL, in a snapshot of its own: a key another transaction committed while the
// claim waited for it is visible here. Our own placeholder has no status yet.
const storedSQL = `SELECT request_hash, coalesce(status, 0), coalesce(content_type, ''), coalesce(body, '')
  FROM idempotency_keys WHERE scope = $1 AND key = $2`

// Run runs fn once for r: in a transaction that claims (scope, key) first, with ctx carrying that
// transaction (Transaction uses it). A success (status below 400) is stored in the same transaction and
// commits with fn's writes; anything else (an error, a 4xx or 5xx response) rolls everything back and is
// returned as it is. A key already committed returns its stored response with replayed=true, or
// ErrKeyReused for another request. A copy racing the first waits on the key until the first ends.
func (s *Store) Run(ctx context.Context, r Request, fn func(ctx context.Context) (Response, error)) (resp Response, replayed bool, err error) {
	if r.Key == "" || len(r.Key) > MaxKeyLen {
		return Response{}, false, fmt.Errorf("idempotency key: want 1..%d characters", MaxKeyLen)
	}
	err = db.Pipelined(s.db).WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var hash []byte
		var stored Response
		claim := &db.Row{SQL: claimSQL + " RETURNING 1", Args: []any{r.Scope, r.Key, r.UserID, r.Hash, s.now()}, Dest: []any{new(int)}}
		read := &db.Row{SQL: storedSQL, Args: []any{r.Scope, r.Key}, Dest: []any{&hash, &stored.Status, &stored.ContentType, &stored.Body}}
		if err := db.QueryRows(ctx, tx, claim, read); err != nil {
			return err
		}
		if claim.NoRow {
			if !bytes.Equal(hash, r.Hash) {
				return ErrKeyReused
			}
			resp, replayed = stored, true
			return nil
		}
		var ferr error
		resp, ferr = fn(WithTx(ctx, tx))
		if ferr != nil || resp.Status >= 400 {
			return errRollback{ferr}
		}
		_, err := db.Exec(ctx, tx, `UPDATE idempotency_keys SET status = $3, content_type = $4, body = $5
			WHERE scope = $1 AND key = $2`, r.Scope, r.Key, resp.Status, resp.ContentType, resp.Body)
		return err
	})
	var rb errRollback
	if errors.As(err, &rb) {
		return resp, false, rb.err
	}
	return resp, replayed, err
}

type txKey struct{}

// WithTx is ctx carrying the keyed request's transaction.
func WithTx(ctx context.Context, tx *gorm.DB) context.Context {
	return context.WithValue(ctx, txKey{}, tx)
}

// TxFrom is the keyed request's transaction, if ctx has one.
func TxFrom(ctx context.Context) (*gorm.DB, bool) {
	tx, ok := ctx.Value(txKey{}).(*gorm.DB)
	return tx, ok
}

// Transaction runs fn in the keyed request's transaction when ctx carries one (Run), so the handler's
// writes commit with the key and its stored response; otherwise in a transaction of its own. A handler
// of a route that opts into Idempotency-Key writes through it.
func Transaction(ctx context.Context, gdb *gorm.DB, fn func(tx *gorm.DB) error) error {
	if tx, ok := TxFrom(ctx); ok {
		return fn(tx.WithContext(ctx))
	}
	return db.Pipelined(gdb).WithContext(ctx).Transaction(fn)
}

// Purge deletes keys created before `before`, batch rows per statement, until none remain or ctx ends.
func (s *Store) Purge(ctx context.Context, before time.Time, batch int) (int, error) {
	total := 0
	for {
		res := s.db.WithContext(ctx).Exec(`DELETE FROM idempotency_keys WHERE (scope, key) IN (
			SELECT scope, key FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?
			FOR UPDATE SKIP LOCKED)`, before, batch)
		if res.Error != nil {
			return total, fmt.Errorf("purge idempotency keys: %w", res.Error)
		}
		total += int(res.RowsAffected)
		if res.RowsAffected < int64(batch) || ctx.Err() != nil {
			return total, nil
		}
	}
}
