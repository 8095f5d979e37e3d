// Package credits is the append-only credit ledger: every grant, deduct and refund is one row in
// credit_transactions, and a user's balance is always SUM(delta). There is no balance column to drift.
// UNIQUE(user_id, job_id, kind) makes every operation idempotent (a job id names one of its user's jobs,
// never another user's), and a lock on the user row makes deducts atomic.
package credits

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Movement kinds stored in credit_transactions.kind. A CHECK constraint ties each kind to the sign of
// its delta: grants and refunds are positive, deducts negative, task markers zero.
const (
	KindGrant            = "grant"
	KindDeduct           = "deduct"
	KindRefund           = "refund"
	KindTaskCompleted    = "task_completed"
	KindTaskFailed       = "task_failed"
	KindReconcilerRefund = "reconciler_refund"
	// KindRecharge charges a job again when it is reported completed after the reconciler refunded it as
	// orphaned: the work was delivered. It may take the balance below zero.
	KindRecharge = "recharge"
)

// Sentinels returned (wrapped) by Service methods; test them with errors.Is.
var (
	// ErrInsufficient means the balance is below the amount of a deduct; nothing was written.
	ErrInsufficient = errors.New("insufficient credits")
	// ErrInvalidAmount means a grant or deduct amount was zero, negative or beyond the INTEGER column.
	ErrInvalidAmount = errors.New("credit amount must be positive")
	// ErrInvalidJobID means the job id was empty. An empty id would be a shared idempotency key, so a
	// second unrelated operation would silently return the first one's row.
	ErrInvalidJobID = errors.New("job id is required")
	// ErrJobConflict means a repeated deduct named a different amount than the user's original one.
	ErrJobConflict = errors.New("job id already used for a different operation")
	// ErrNoDeduct means a refund or failure named a job id that has no deduct.
	ErrNoDeduct = errors.New("no deduct for this job")
	// ErrBadCursor means a List cursor was not one that List returned.
	ErrBadCursor = db.ErrBadCursor
	// ErrInvalidText means a job id or reason cannot be stored: longer than its column, a NUL byte, or
	// not UTF-8. A TextError names the field.
	ErrInvalidText = errors.New("invalid text")
	// ErrInvalidExpiry means a spend's expires_in was outside MinExpiresIn..MaxExpiresIn.
	ErrInvalidExpiry = errors.New("expires_in must be between 1 second and 24 hours")
)

// The orphan window of a deduct: the reconciler refunds it once expires_in has passed without an outcome.
// A job that may run longer than a day must report in pieces; a window under a second is always a bug.
const (
	DefaultExpiresIn = 15 * time.Minute
	MinExpiresIn     = time.Second
	MaxExpiresIn     = 24 * time.Hour
)

// Column widths of credit_transactions.job_id and .reason.
const (
	MaxJobIDLen  = 128
	MaxReasonLen = 255
)

// TextError names the field behind ErrInvalidText.
type TextError struct {
	Field string
	Max   int
}

// Error says what the field must be.
func (e *TextError) Error() string {
	return fmt.Sprintf("%s must be valid text of at most %d characters", e.Field, e.Max)
}

// Unwrap makes errors.Is see ErrInvalidText.
func (e *TextError) Unwrap() error { return ErrInvalidText }

// FieldNames names the offending field, for the API's error message.
func (e *TextError) FieldNames() []string { return []string{e.Field} }

// Movement is one ledger row as callers see it.
type Movement struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	Delta     int
	Kind      string
	JobID     string
	Reason    string
	CreatedAt time.Time
	// ExpiresAt is a deduct's orphan deadline; nil for every other kind.
	ExpiresAt *time.Time
}

// Config is the ledger's policy; the zero value uses the defaults.
type Config struct {
	// DefaultExpiresIn is the orphan window of a spend that names none (CREDITS_ORPHAN_AFTER);
	// 0 means DefaultExpiresIn.
	DefaultExpiresIn time.Duration
}

// Service reads and appends ledger rows.
type Service struct {
	db  *gorm.DB
	cfg Config
	// bound is true when db is a caller's transaction (see WithTx).
	bound bool
}

// New returns a Service on the given pool; each call that needs atomicity opens its own transaction.
func New(db *gorm.DB, cfg Config) *Service {
	if cfg.DefaultExpiresIn == 0 {
		cfg.DefaultExpiresIn = DefaultExpiresIn
	}
	return &Service{db: db, cfg: cfg}
}

// WithTx returns a Service bound to the caller's transaction, so one transaction can span a webhook's
// claim, billing rows and the ledger. A bound Service never begins, commits or rolls back; it also never
// issues a statement that fails on purpose, so the caller's transaction stays usable after any sentinel.
func (s *Service) WithTx(tx *gorm.DB) *Service {
	return &Service{db: tx, cfg: s.cfg, bound: true}
}

// Balance returns SUM(delta) over the user's movements; an unknown user has a balance of 0.
func (s *Service) Balance(ctx context.Context, userID uuid.UUID) (int, error) {
	n, err := balance(s.db.WithContext(ctx), userID)
	if err != nil {
		return 0, wrap("credit balance", err)
	}
	return n, nil
}

// inTx runs fn in the caller's transaction when bound, else in a new one. A bound call must not use
// gorm's Transaction: on a transaction it becomes a SAVEPOINT, two extra round trips on the webhook path.
func (s *Service) inTx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	tx := s.db.WithContext(ctx)
	if s.bound {
		return fn(tx)
	}
	return tx.Transaction(fn)
}

// validate rejects what the database would either refuse mid-transaction or accept wrongly. Every entry
// point runs it (the API's spends and the webhooks' grants alike): a bad value fails as a sentinel before
// any statement, so a caller's transaction stays usable.
func validate(amount int, jobID, reason string) error {
	if amount <= 0 || amount > math.MaxInt32 {
		return ErrInvalidAmount
	}
	if err := validJobID(jobID); err != nil {
		return err
	}
	return validText("reason", reason, MaxReasonLen)
}

// expiresIn is the orphan window of a spend: the configured default for 0, else d within its bounds.
func (s *Service) expiresIn(d time.Duration) (time.Duration, error) {
	if d == 0 {
		d = s.cfg.DefaultExpiresIn
	}
	if d < MinExpiresIn || d > MaxExpiresIn {
		return 0, ErrInvalidExpiry
	}
	return d, nil
}

func validJobID(jobID string) error {
	if jobID == "" {
		return ErrInvalidJobID
	}
	return validText("job_id", jobID, MaxJobIDLen)
}

// validText rejects what Postgres would refuse: too long for the column (VARCHAR counts characters), a
// NUL byte, or bytes that are not UTF-8.
func validText(field, s string, maxLen int) error {
	if utf8.RuneCountInString(s) > maxLen || strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
		return &TextError{Field: field, Max: maxLen}
	}
	return nil
}
