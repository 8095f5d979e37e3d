// Package account is the policy for users: what Clerk's user events mean for our users table, the signup
// credit grant and the welcome email, lazy users and sign-in restore, the profile, consent, unsubscribe
// links and the GDPR export and erasure.
package account

import (
	"context"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// Config is what the account policy needs from the service configuration.
type Config struct {
	// SignupCredits is the free tier's one-time grant on user.created.
	SignupCredits int
	AppName       string
	DashboardURL  string
	// DeletionGrace is how long a soft-deleted account can be restored by signing in again.
	DeletionGrace time.Duration
	// UnsubscribeSecret keys the HMAC of unsubscribe links (EMAIL_UNSUBSCRIBE_SECRET).
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

// Service applies account policy.
type Service struct {
	db      *gorm.DB
	credits *credits.Service
	mailer  Jobs
	cfg     Config
	log     *slog.Logger
}

// New builds the account service.
func New(db *gorm.DB, ledger *credits.Service, mailer Jobs, cfg Config, log *slog.Logger) *Service {
	return &Service{db: db, credits: ledger, mailer: mailer, cfg: cfg, log: log}
}
