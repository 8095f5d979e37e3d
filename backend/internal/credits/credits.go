// Package credits is the credit ledger. Every movement (grant, deduct, charge, refund, expiry, ...) is one
// append-only row in credit_transactions with an idempotency key: UNIQUE(user_id, job_id, kind) makes each
// operation happen once (a job id names one of its user's jobs, never another user's). Derived state is
// maintained in the same transaction as each movement and checked by Verify: the user's balance row
// (credit_balances, which is also the per-user lock), the buckets grants create (credit_buckets: amount,
// remaining, expiry, priority, category) and which buckets each movement took from or gave to
// (credit_allocations). docs/billing.md (*Credits*) has the model and the burn order.
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

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Movement kinds stored in credit_transactions.kind. A CHECK constraint ties each kind to the sign of
// its delta: grants, refunds and rollovers are positive; deducts, charges, recharges, corrections and
// expiries negative; task markers and debt settlements zero.
const (
	KindGrant            = "grant"
	KindDeduct           = "deduct"
	KindRefund           = "refund"
	KindTaskCompleted    = "task_completed"
	KindTaskFailed       = "task_failed"
	KindReconcilerRefund = "reconciler_refund"
	// KindRecharge charges a job again when it is reported completed after the reconciler refunded it as
	// orphaned: the work was delivered. It may take the balance below zero (the uncovered part is debt).
	KindRecharge = "recharge"
	// KindCharge is a final charge (Charge): no orphan deadline, never refunded.
	KindCharge = "charge"
	// KindCorrection is an operator's negative adjustment; it never takes the balance below zero.
	KindCorrection = "correction"
	// KindExpire writes off a bucket's unspent remainder, exactly once per bucket (the breakage).
	KindExpire = "expire"
	// KindRollover carries unspent allowance into the next month's bucket (at most the tier's cap).
	KindRollover = "rollover"
	// KindSettle moves credits from the user's buckets into their debt; its delta is zero.
	KindSettle = "settle"
)

// Bucket categories. A spend burns promotional before allowance before purchased at equal priority and
// expiry (docs/billing.md, *Buckets and the burn order*).
const (
	// CategoryAllowance is a subscription's monthly credits; it follows the tier's rollover rule.
	CategoryAllowance = "allowance"
	// CategoryPurchased is a credit pack bought with a one-time payment.
	CategoryPurchased = "purchased"
	// CategoryPromotional is given: the sign-up grant, an operator's grant.
	CategoryPromotional = "promotional"
	// CategoryDebt holds what a recharge could not cover (remaining <= 0); one per user. No grant names it.
	CategoryDebt = "debt"
)

// Priorities of buckets: lower burns first.
const (
	MinPriority     = 1
	MaxPriority     = 100
	DefaultPriority = 50
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
	// ErrInvalidGrant means a grant's category, priority or expiry is not one the ledger accepts.
	ErrInvalidGrant = errors.New("invalid grant")
	// ErrReasonRequired means an operator's adjustment did not say why: every credit an operator gives or
	// takes is explained in the ledger and the audit trail.
	ErrReasonRequired = errors.New("reason is required")
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
	// Now is the clock every movement is stamped with and every expiry is decided by (app's; the system
	// clock when nil).
	Now func() time.Time
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
	cfg.Now = clock.Or(cfg.Now)
	return &Service{db: db, cfg: cfg}
}

// WithTx returns a Service bound to the caller's transaction, so one transaction can span a webhook's
// claim, billing rows and the ledger. A bound Service never begins, commits or rolls back; it also never
// issues a statement that fails on purpose, so the caller's transaction stays usable after any sentinel.
// Every movement takes the user's balance row lock, held until the caller's transaction ends: keep such
// transactions short.
func (s *Service) WithTx(tx *gorm.DB) *Service {
	return &Service{db: tx, cfg: s.cfg, bound: true}
}

// now is the ledger's clock, in UTC and at the database's microsecond precision, so a time the ledger
// stores compares equal to the one it computed.
func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Microsecond) }

// Now is the ledger's clock (the app's): what decides whether a bucket has expired.
func (s *Service) Now() time.Time { return s.now() }

// Balance returns what the user can spend: the sum of their movements, less what has expired and not yet
// been written off. An unknown user has a balance of 0. It reads one row (and, while an expiry is due,
// the user's buckets), whatever the history.
func (s *Service) Balance(ctx context.Context, userID uuid.UUID) (int, error) {
	n, err := available(s.db.WithContext(ctx), userID, s.now())
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
