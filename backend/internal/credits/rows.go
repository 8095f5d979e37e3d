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

// columns is the RETURNING/SELECT list, in the order scanOne reads it into a Movement.
const columns = "id, user_id, delta, kind, job_id, reason, created_at, expires_at"

// onConflict turns a repeated (user_id, job_id, kind) into "no row returned" instead of a unique
// violation: a failed statement would abort the caller's whole transaction, webhook claim included.
const onConflict = " ON CONFLICT ON CONSTRAINT uq_credit_transactions_user_job_kind DO NOTHING RETURNING " + columns

// markerSQL appends a movement that moves no credits (a job's outcome marker, delta 0): it touches neither
// the balance row nor any bucket.
const markerSQL = `INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason, created_at)
VALUES ($1, 0, $2, $3, $4, $5)` + onConflict

// scanOne runs a statement returning columns (at most one row) in tx and reports whether it returned a
// row. It goes around GORM's reflection (db.QueryRow): the ledger's statements run on every webhook that
// grants credits.
func scanOne(tx *gorm.DB, query string, args ...any) (Movement, bool, error) {
	var m Movement
	err := db.QueryRow(tx.Statement.Context, tx, query, args,
		&m.ID, &m.UserID, &m.Delta, &m.Kind, &m.JobID, &m.Reason, &m.CreatedAt, &m.ExpiresAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return Movement{}, false, nil
	case err != nil:
		return Movement{}, false, translate(tx, err)
	}
	return m, true, nil
}

// scanned turns a statement's sql.ErrNoRows into ok=false (the key existed: nothing was written).
func scanned(tx *gorm.DB, err error) (ok bool, _ error) {
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, translate(tx, err)
	}
	return true, nil
}

// find returns the user's movement for (jobID, kind), if any. Only the user's own rows are ever read by
// job id: another user's job of the same id is a different job.
func find(tx *gorm.DB, userID uuid.UUID, jobID, kind string) (Movement, bool, error) {
	return scanOne(tx, `SELECT `+columns+` FROM credit_transactions WHERE user_id = $1 AND job_id = $2 AND kind = $3`,
		userID, jobID, kind)
}

// insertMarker appends a zero movement once; created is false when the user already has it for jobID.
func insertMarker(tx *gorm.DB, userID uuid.UUID, kind, jobID, reason string, now time.Time) (created bool, err error) {
	_, created, err = scanOne(tx, markerSQL, userID, kind, jobID, reason, now)
	return created, err
}

// mustFind reads the row that just made an insert a no-op. It is a separate statement on purpose: in
// READ COMMITTED a new statement gets a new snapshot, which sees a conflicting row that another
// transaction committed while our insert waited on it; one INSERT ... UNION SELECT statement would not.
func mustFind(tx *gorm.DB, userID uuid.UUID, jobID, kind string) (Movement, error) {
	m, ok, err := find(tx, userID, jobID, kind)
	if err != nil {
		return Movement{}, err
	}
	if !ok {
		// Only if the user was deleted in between, or under REPEATABLE READ.
		return Movement{}, fmt.Errorf("%s movement for job %q conflicted but is not visible", kind, jobID)
	}
	return m, nil
}

// translate is db.Translate, plus two things. gorm translates errors of Exec but not of Raw(...).Scan (its
// row callback sets db.Error without AddError), so the dialector is asked here directly. And a foreign key
// violation on insert means the user does not exist, which callers test as db.ErrNotFound, as they do
// for a failed user lock.
func translate(q *gorm.DB, err error) error {
	if t, ok := q.Dialector.(gorm.ErrorTranslator); ok && errors.Is(t.Translate(err), gorm.ErrForeignKeyViolated) {
		return fmt.Errorf("user: %w: %w", db.ErrNotFound, err)
	}
	return db.Translate(err)
}

// wrap prefixes err with the operation, keeping sentinels testable with errors.Is.
func wrap(op string, err error) error {
	return fmt.Errorf("%s: %w", op, err)
}
