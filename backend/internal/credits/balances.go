package credits

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// The balance row (credit_balances) is each user's running total and their lock. Every movement is two
// statements: the first changes the balance row by the movement's delta, which takes the row lock (and, for
// a spend, is the balance check: one conditional UPDATE, whatever the history); the second records the
// movement and its allocations to buckets (buckets.go). The second runs after the first has the lock, so
// under READ COMMITTED its snapshot includes everything earlier holders of the lock committed. If the
// movement's idempotency key already exists, the second statement writes nothing and undoes the first.

// debitSQL takes amount from a balance that covers it and has no expiry due (a due bucket's credits are
// still counted until written off, so a spend must write them off first: see expireDueOf).
const debitSQL = `UPDATE credit_balances SET balance = balance - $2, updated_at = $3
 WHERE user_id = $1 AND balance >= $2 AND (next_expiry_at IS NULL OR next_expiry_at > $3)
RETURNING balance`

// debitAnySQL takes amount whatever the balance: a recharge of delivered work, which may leave debt.
const debitAnySQL = `UPDATE credit_balances SET balance = balance - $2, updated_at = $3 WHERE user_id = $1
RETURNING balance`

// creditSQL adds amount, creating the row for a user's first movement. expiresAt (the new bucket's expiry,
// if any) lowers next_expiry_at; LEAST ignores NULL.
const creditSQL = `INSERT INTO credit_balances AS b (user_id, balance, next_expiry_at, updated_at)
VALUES ($1, $2, $3, $4)
ON CONFLICT (user_id) DO UPDATE SET balance = b.balance + EXCLUDED.balance,
  next_expiry_at = LEAST(b.next_expiry_at, EXCLUDED.next_expiry_at), updated_at = EXCLUDED.updated_at
RETURNING balance`

// lockSQL takes the lock without changing the row (job lifecycle reads, expiries).
const lockSQL = `SELECT balance, next_expiry_at FROM credit_balances WHERE user_id = $1 FOR NO KEY UPDATE`

// availableSQL is the spendable balance: the row's balance less what is due to expire but not yet written
// off. The bucket read runs only while next_expiry_at has passed.
const availableSQL = `SELECT b.balance - CASE WHEN b.next_expiry_at <= $2 THEN
    (SELECT coalesce(sum(x.remaining), 0) FROM credit_buckets x
      WHERE x.user_id = b.user_id AND x.remaining > 0 AND x.expires_at <= $2) ELSE 0 END
  FROM credit_balances b WHERE b.user_id = $1`

// balanceState is the locked balance row.
type balanceState struct {
	exists     bool
	balance    int
	nextExpiry *time.Time
}

// due reports whether some bucket may have expired by now.
func (b balanceState) due(now time.Time) bool { return b.nextExpiry != nil && !b.nextExpiry.After(now) }

// lockBalance takes the user's lock and reads their balance row; exists is false for a user who never had
// a movement (nothing is locked then: there is nothing to protect).
func lockBalance(tx *gorm.DB, userID uuid.UUID) (balanceState, error) {
	st := balanceState{exists: true}
	err := db.QueryRow(tx.Statement.Context, tx, lockSQL, []any{userID}, &st.balance, &st.nextExpiry)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return balanceState{}, nil
	case err != nil:
		return balanceState{}, translate(tx, err)
	}
	return st, nil
}

// debit runs debitSQL; ok is false when the balance does not cover amount, an expiry is due, or the user
// has no balance row.
func debit(tx *gorm.DB, userID uuid.UUID, amount int, now time.Time) (bal int, ok bool, err error) {
	err = db.QueryRow(tx.Statement.Context, tx, debitSQL, []any{userID, amount, now}, &bal)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, translate(tx, err)
	}
	return bal, true, nil
}

// debitAny runs debitAnySQL on a row the caller has locked.
func debitAny(tx *gorm.DB, userID uuid.UUID, amount int, now time.Time) (int, error) {
	var bal int
	if err := db.QueryRow(tx.Statement.Context, tx, debitAnySQL, []any{userID, amount, now}, &bal); err != nil {
		return 0, translate(tx, err)
	}
	return bal, nil
}

// credit runs creditSQL.
func credit(tx *gorm.DB, userID uuid.UUID, amount int, expiresAt *time.Time, now time.Time) (int, error) {
	var bal int
	if err := db.QueryRow(tx.Statement.Context, tx, creditSQL, []any{userID, amount, expiresAt, now}, &bal); err != nil {
		return 0, translate(tx, err)
	}
	return bal, nil
}

// available runs availableSQL; a user without a balance row has 0.
func available(tx *gorm.DB, userID uuid.UUID, now time.Time) (int, error) {
	var n int
	err := db.QueryRow(tx.Statement.Context, tx, availableSQL, []any{userID, now}, &n)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, translate(tx, err)
	}
	return n, nil
}

// errUncovered is a burn that found less in the buckets than the balance row promised: the derived state
// disagrees with itself. The transaction rolls back; `fabrica verify ledger` shows where.
var errUncovered = errors.New("ledger: the buckets do not hold what the balance says")

func uncovered(userID uuid.UUID, want, got int) error {
	return fmt.Errorf("%w (user %s: %d wanted, %d found)", errUncovered, userID, want, got)
}
