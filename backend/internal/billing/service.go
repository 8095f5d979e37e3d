package billing

import (
	"context"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// Config is what billing needs from the service configuration.
type Config struct {
	AppName string
}

// Mailer enqueues an email as a job inside the caller's transaction (see jobs.Queue).
type Mailer interface {
	EnqueueEmailTx(ctx context.Context, tx *gorm.DB, template, to, idempotencyKey string, data any) error
}

// Service applies billing policy.
type Service struct {
	db      *gorm.DB
	tiers   *Tiers
	credits *credits.Service
	mailer  Mailer
	signer  *CheckoutSigner
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	api     PaddleAPI
}

// New builds the billing service.
func New(db *gorm.DB, tiers *Tiers, ledger *credits.Service, mailer Mailer, signer *CheckoutSigner, cfg Config, log *slog.Logger) *Service {
	return &Service{db: db, tiers: tiers, credits: ledger, mailer: mailer, signer: signer, cfg: cfg, log: log, now: time.Now}
}

// Tiers returns the tier table.
func (s *Service) Tiers() *Tiers { return s.tiers }
