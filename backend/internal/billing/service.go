package billing

import (
	"context"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// Config is what billing needs from the service configuration.
type Config struct {
	AppName string
	// AlertEmails receive operator alerts (ADMIN_EMAILS): a duplicate subscription, say.
	AlertEmails []string
	// ManageURL is where a user updates their payment method (the "payment failed" email links it).
	ManageURL string
}

// Mailer enqueues an email as a job inside the caller's transaction (see jobs.Queue).
type Mailer interface {
	EnqueueEmailTx(ctx context.Context, tx *gorm.DB, template, to, idempotencyKey string, data any) error
}

// Deps are billing's collaborators. API is nil when PADDLE_API_KEY is unset: management calls then fail
// with ErrNoPaddleAPI while webhooks keep working.
type Deps struct {
	DB     *gorm.DB
	Tiers  *Tiers
	Ledger *credits.Service
	Jobs   Mailer
	Signer *CheckoutSigner
	API    PaddleAPI
	// Erasures lets a user be created from signed checkout data only if it was never erased.
	Erasures account.Erasures
	Log      *slog.Logger
	// Now is the clock (app's; the system clock when nil): checkout signatures, cancellations' ends.
	Now func() time.Time
}

// Service applies billing policy.
type Service struct {
	db      *gorm.DB
	tiers   *Tiers
	credits *credits.Service
	mailer  Mailer
	signer  *CheckoutSigner
	erased  account.Erasures
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	api     PaddleAPI
}

// New builds the billing service.
func New(d Deps, cfg Config) *Service {
	return &Service{db: d.DB, tiers: d.Tiers, credits: d.Ledger, mailer: d.Jobs, signer: d.Signer, api: d.API,
		erased: d.Erasures, cfg: cfg, log: d.Log, now: clock.Or(d.Now)}
}

// Tiers returns the tier table.
func (s *Service) Tiers() *Tiers { return s.tiers }
