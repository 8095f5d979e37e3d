// Package usage meters what users do against the features their tier grants (the tiers file's
// features): counters that reset every usage month, credits features that charge the ledger, gauges the
// app sets, switches. Recording an event is exactly once by construction: the event's claim
// (usage_claims, UNIQUE per user and key), its counter (usage_counters, the row is the lock and the
// block check one conditional upsert) and any credit charge commit in one transaction, the caller's own
// when it has one. Decisions read the counters, never the events (usage_events, monthly partitions, kept
// for history). docs/usage.md has the model, the guarantees and the statements.
package usage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// Statuses of a recorded (or refused) event. Only recorded keeps the key: a refused event writes nothing,
// so its retry (after an upgrade, a top-up) is decided again rather than replaying the refusal.
const (
	// StatusRecorded: counted (and, for a credits feature, charged).
	StatusRecorded = "recorded"
	// StatusDuplicate: the key was recorded before; nothing changed, the original event is returned.
	StatusDuplicate = "duplicate"
	// StatusLimitExceeded: a block counter (or a gauge) would pass its limit; nothing recorded.
	StatusLimitExceeded = "limit_exceeded"
	// StatusInsufficientCredits: the balance does not cover the charge; nothing recorded.
	StatusInsufficientCredits = "insufficient_credits"
	// StatusDisabled: the user's tier does not have the feature.
	StatusDisabled = "disabled"
	// StatusKeyConflict: the key was recorded for another feature or quantity; nothing changed.
	StatusKeyConflict = "key_conflict"
	// StatusTooOld: occurred_at is older than the dedup window, whose keys may be gone: refused so a late
	// duplicate can never count twice.
	StatusTooOld = "too_old"
	// StatusUnknownUser: no such user, or the account is deleted.
	StatusUnknownUser = "unknown_user"
)

// Limits of one event.
const (
	MaxKeyLen   = 120
	MaxQuantity = 1_000_000_000
	// MaxBatch is the most events one Record call takes (the API's batch bound).
	MaxBatch = 1000
	// FutureSkew is how far ahead of the server's clock occurred_at may be (a client's clock drift).
	FutureSkew = 5 * time.Minute
	// DefaultDedupWindow keeps keys (and accepts events) for 35 days, as Stripe accepts meter events.
	DefaultDedupWindow = 35 * 24 * time.Hour
	// DefaultRetention keeps events for 13 months: a year of history plus the month in progress.
	DefaultRetention = 396 * 24 * time.Hour
)

// Sentinels; test them with errors.Is.
var (
	// ErrInvalid means an event (or a check, a gauge) names no known feature, a bad quantity, key or
	// time; a FieldError says which. Nothing was written.
	ErrInvalid = errors.New("invalid usage")
	// ErrNoReservation means Commit or Release named a key with no reservation.
	ErrNoReservation = errors.New("no reservation for this key")
)

// FieldError names what is wrong with one field (events[3].quantity) behind ErrInvalid.
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Unwrap makes errors.Is see ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// FieldNames names the field, for the API's error message.
func (e *FieldError) FieldNames() []string { return []string{e.Field + " (" + e.Reason + ")"} }

func invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// EmailQueue enqueues an email as a job in the caller's transaction (jobs.Queue).
type EmailQueue interface {
	EnqueueEmailTx(ctx context.Context, tx *gorm.DB, template, to, idempotencyKey string, data any) error
}

// Config is usage's policy.
type Config struct {
	// DedupWindow keeps keys and bounds how old an event may be (USAGE_DEDUP_WINDOW; 0: 35 days).
	DedupWindow time.Duration
	// Retention keeps usage events (USAGE_EVENT_RETENTION; 0: 13 months); never shorter than the window.
	Retention time.Duration
	// AppName and ManageURL fill the threshold email.
	AppName, ManageURL string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Deps are usage's collaborators.
type Deps struct {
	DB     *gorm.DB
	Tiers  *billing.Tiers
	Ledger *credits.Service
	Jobs   EmailQueue
	// Hooks run once per notification, in the transaction that delivers it (notify.go).
	Hooks []Hook
	Log   *slog.Logger
}

// Service meters usage.
type Service struct {
	db     *gorm.DB
	tiers  *billing.Tiers
	ledger *credits.Service
	jobs   EmailQueue
	hooks  []Hook
	log    *slog.Logger
	cfg    Config
}

// New builds the Service.
func New(d Deps, cfg Config) *Service {
	if cfg.DedupWindow <= 0 {
		cfg.DedupWindow = DefaultDedupWindow
	}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	cfg.Retention = max(cfg.Retention, cfg.DedupWindow+31*24*time.Hour)
	cfg.Now = clock.Or(cfg.Now)
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{db: d.DB, tiers: d.Tiers, ledger: d.Ledger, jobs: d.Jobs, hooks: d.Hooks, log: d.Log, cfg: cfg}
}

// now is the clock at the database's precision, UTC.
func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Microsecond) }

// Event is one unit of usage to record: quantity units of feature by the user, once per key.
type Event struct {
	UserID   uuid.UUID
	Feature  string
	Quantity int64
	// Key is the idempotency key, unique per user: the same key again is a duplicate. Derive it from
	// what the event is (a request id, a job id), never from the time it is sent.
	Key string
	// OccurredAt is when the usage happened (zero: now). It picks the usage month, and an event older
	// than the dedup window is refused (StatusTooOld).
	OccurredAt time.Time
}

// Result is what recording one event did.
type Result struct {
	Status string
	// EventID is the recorded event's id (the original one for a duplicate).
	EventID  uuid.UUID
	Feature  string
	Quantity int64
	// Used is the feature's usage this month after the event (a refusal: as it stands).
	Used int64
	// Limit and Remaining are nil for a feature without a limit (credits features).
	Limit, Remaining *int64
	// PeriodStart and PeriodEnd bound the usage month the event counts in (ResetsAt is PeriodEnd).
	PeriodStart, PeriodEnd time.Time
	// Charged is what a credits feature charged; Balance the balance after it (nil otherwise).
	Charged int
	Balance *int
	// Notified lists the thresholds this event crossed (limit_80, limit_100, low_balance).
	Notified []string
}

// validKey rejects what the claim's column or the ledger's key could not hold.
func validKey(field, key string) error {
	switch {
	case key == "":
		return invalid(field, "required")
	case utf8.RuneCountInString(key) > MaxKeyLen || strings.ContainsRune(key, 0) || !utf8.ValidString(key):
		return invalid(field, "at most %d characters of valid text", MaxKeyLen)
	}
	return nil
}

// ledgerKey is the ledger job id of a usage event's charge: the event's key, in the usage namespace.
func ledgerKey(key string) string { return "usage:" + key }
