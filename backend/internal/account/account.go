// Package account is the policy for users: what Clerk's user events mean for our users table, the sign-up
// hooks (the signup credit grant, the welcome email, and any a deployment adds), lazy users and sign-in
// restore, the profile, consent, first-touch attribution, unsubscribe links and the GDPR export and erasure.
package account

import (
	"context"
	"crypto/cipher"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
)

// Config is what the account policy needs from the service configuration.
type Config struct {
	AppName      string
	DashboardURL string
	// DeletionGrace is how long a soft-deleted account can be restored by signing in again.
	DeletionGrace time.Duration
	// UnsubscribeSecret keys unsubscribe links (EMAIL_UNSUBSCRIBE_SECRET): the v2 token cipher is derived
	// from it, and it is the HMAC key of the v1 tokens still accepted.
	UnsubscribeSecret string
	// PublicBaseURL prefixes links in emails.
	PublicBaseURL string
}

// Jobs enqueues work inside the caller's transaction, so it exists if and only if the transaction (the
// webhook's claim, the deletion) commits: the welcome email, and the Paddle cancellation of a deleted
// account's subscription.
type Jobs interface {
	EnqueueEmailTx(ctx context.Context, tx *gorm.DB, template, to, idempotencyKey string, data any) error
	EnqueueCancelSubscriptionTx(ctx context.Context, tx *gorm.DB, paddleSubscriptionID string) error
}

// Billing is what the account policy needs from subscriptions, which the billing package owns
// (*billing.Service implements it): the live ones a deletion cancels (the export reaches them through
// billing's userdata entry). Declared here because billing depends on account (users), not the other way
// round.
type Billing interface {
	LiveSubscriptionIDsTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID) ([]string, error)
}

// Deps are the account policy's collaborators.
type Deps struct {
	DB      *gorm.DB
	Ledger  *credits.Service
	Jobs    Jobs
	Billing Billing
	// Erasures keeps the tombstones of erased users (the same value billing gets).
	Erasures Erasures
	// SignupHooks run once per user inside user.created's transaction, in order (see SignupHook): app
	// lists SignupGrant and WelcomeEmail, then any hook of its own.
	SignupHooks []SignupHook
	// UserData is every owner's tables of a user's data (app collects them): the export writes their
	// sections and the erasure runs their erasure work. Nil: only the users row itself.
	UserData *userdata.Registry
	Log      *slog.Logger
	// Now is the clock (app's; the system clock when nil): deletion and its grace, restores, exports.
	Now func() time.Time
}

// Service applies account policy.
type Service struct {
	db       *gorm.DB
	credits  *credits.Service
	mailer   Jobs
	billing  Billing
	erased   Erasures
	hooks    []SignupHook
	userdata *userdata.Registry
	unsub    cipher.AEAD
	cfg      Config
	log      *slog.Logger
	now      func() time.Time
}

// New builds the account service.
func New(d Deps, cfg Config) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{db: d.DB, credits: d.Ledger, mailer: d.Jobs, billing: d.Billing, erased: d.Erasures,
		hooks: d.SignupHooks, userdata: d.UserData, unsub: newUnsubscribeAEAD(cfg.UnsubscribeSecret), cfg: cfg, log: d.Log, now: clock.Or(d.Now)}
}

// Audit actions this package writes besides the Clerk event names.
const (
	ActionUpdated        = "account.updated"
	ActionDeleted        = "account.deleted"
	ActionRestored       = "account.restored"
	ActionExported       = "account.exported"
	ActionConsentUpdated = "account.consent_updated"
	ActionUnsubscribed   = "email.unsubscribed"
	ActionHardDeleted    = "user.hard_deleted"
)

// Sources recorded in users.marketing_consent_source.
const (
	ConsentSourceAPI         = "api"
	ConsentSourceUnsubscribe = "unsubscribe_link"
)
