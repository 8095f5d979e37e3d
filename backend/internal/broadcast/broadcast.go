// Package broadcast sends admin-composed mail to an audience: a run is composed and queued, then a
// dispatcher pages through the audience, inserting one recipient row per user (UNIQUE(run_id, user_id))
// and one send job per recipient in the same transaction, and each send job re-checks the recipient right
// before mailing them. However often a run is sent, however many dispatchers race, and wherever one
// crashes, nobody is mailed twice: a recipient row exists once, its job is unique by (run, user), and it is
// settled only while pending. The package owns broadcast_runs and broadcast_recipients.
package broadcast

import (
	"context"
	"errors"
	"log/slog"

	"github.com/google/uuid"
	"golang.org/x/time/rate"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

// Kinds of broadcast. Marketing mail always needs the recipient's marketing consent and carries the
// RFC 8058 unsubscribe headers; transactional mail (terms changed, an outage) needs it too unless the run
// says bypass_consent, which only a template with fixed wording may (email.MayBypassConsent).
const (
	KindMarketing     = "marketing"
	KindTransactional = "transactional"
)

// Run statuses: queued (composed), sending (dispatch started), finished (every recipient settled after the
// dispatch completed), failed (the dispatch gave up; sending again resumes it).
const (
	StatusQueued   = "queued"
	StatusSending  = "sending"
	StatusFinished = "finished"
	StatusFailed   = "failed"
)

// Recipient statuses.
const (
	RecipientPending = "pending"
	RecipientSent    = "sent"
	RecipientSkipped = "skipped"
	RecipientFailed  = "failed"
)

// Audit actions this package writes.
const (
	ActionQueued        = "broadcast.queued"
	ActionSendRequested = "broadcast.send_requested"
	ActionFinished      = "broadcast.finished"
	ActionFailed        = "broadcast.failed"
	ActionEmailSent     = "email.sent"
	ActionEmailSkipped  = "email.skipped"
	ActionEmailFailed   = "email.failed"
)

// Sentinels returned (wrapped) by the Service.
var (
	// ErrInvalidDraft means a draft's field is missing, too long or malformed (an account.FieldError names it).
	ErrInvalidDraft = errors.New("invalid broadcast")
	// ErrUnknownTemplate means the draft names no broadcast template.
	ErrUnknownTemplate = errors.New("unknown broadcast template")
	// ErrConsentRequired means a marketing broadcast asked to bypass consent: marketing mail never may.
	ErrConsentRequired = errors.New("marketing email cannot bypass consent")
	// ErrBypassNeedsFixedWording means a broadcast of a free-form template (the announcement: an operator's
	// own subject and body) asked to bypass consent. Only a template whose wording is fixed may: free text
	// sent to everyone without consent and without an unsubscribe link is a mailing, whatever its kind says.
	ErrBypassNeedsFixedWording = errors.New("only a template with fixed wording may bypass consent")
)

// Jobs enqueues the dispatcher and the send jobs inside the caller's transaction (*jobs.Queue implements
// it): a recipient row and its send job commit together or not at all.
type Jobs interface {
	EnqueueBroadcastDispatchTx(ctx context.Context, tx *gorm.DB, runID uuid.UUID) error
	// EnqueueBroadcastSendsTx inserts one send job per user, unique by (run, user), and reports how many
	// were new.
	EnqueueBroadcastSendsTx(ctx context.Context, tx *gorm.DB, runID uuid.UUID, userIDs []uuid.UUID) (int, error)
}

// Unsubscriber makes a user's unsubscribe link (*account.Service).
type Unsubscriber interface {
	UnsubscribeURL(userID uuid.UUID) string
}

// Deps are the broadcast service's collaborators.
type Deps struct {
	DB     *gorm.DB
	Jobs   Jobs
	Sender email.Sender
	Links  Unsubscriber
	Tiers  *billing.Tiers
	Log    *slog.Logger
}

// Config is what the broadcast service needs from the service configuration.
type Config struct {
	AppName string
	// CompanyLegalName goes into every mail's footer (COMPANY_LEGAL_NAME).
	CompanyLegalName string
	// RatePerSecond throttles sends in this process (EMAIL_RATE_PER_SECOND); 0 does not throttle.
	RatePerSecond float64
	// PageSize is how many recipients one dispatcher transaction inserts (default 500).
	PageSize int
}

// DefaultPageSize bounds a dispatcher transaction when Config.PageSize is unset.
const DefaultPageSize = 500

// Service composes, dispatches and sends broadcasts.
type Service struct {
	db       *gorm.DB
	jobs     Jobs
	sender   email.Sender
	links    Unsubscriber
	tiers    *billing.Tiers
	log      *slog.Logger
	limiter  *rate.Limiter
	cfg      Config
	renderer email.Renderer
}

// New builds the broadcast service.
func New(d Deps, cfg Config) *Service {
	if cfg.PageSize <= 0 {
		cfg.PageSize = DefaultPageSize
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	limit := rate.Inf
	if cfg.RatePerSecond > 0 {
		limit = rate.Limit(cfg.RatePerSecond)
	}
	// Burst 1: sends are spread evenly rather than bunched at the start of each second.
	return &Service{db: d.DB, jobs: d.Jobs, sender: d.Sender, links: d.Links, tiers: d.Tiers, log: d.Log,
		limiter: rate.NewLimiter(limit, 1), cfg: cfg,
		renderer: email.Renderer{Footer: email.Footer{CompanyLegalName: cfg.CompanyLegalName}}}
}

// Preview renders template with its sample data as a send would, with this deployment's footer.
func (s *Service) Preview(template string) (email.Message, error) {
	return s.renderer.Preview(template)
}
