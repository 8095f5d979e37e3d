// Package admin is the operator's read side: users, the audit trail, webhook forensics and stats, plus the
// one privileged write, replaying a failed webhook delivery. Who counts as an operator is the HTTP layer's
// gate; this package only records what operators (and those refused) did.
package admin

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// Audit actions written by this package.
const (
	ActionUnauthorized    = "admin.unauthorized"
	ActionWebhookReplayed = "admin.webhook_replayed"
)

// Sentinels returned (wrapped) by Service methods.
var (
	// ErrBadCursor means a list cursor was not one this service handed out.
	ErrBadCursor = db.ErrBadCursor
	// ErrNoReplayer means the service was built without the webhook pipeline, so it cannot replay.
	ErrNoReplayer = errors.New("webhook replay is not configured")
)

// Replayer re-runs an archived webhook delivery through the idempotent pipeline (*webhook.Pipeline).
type Replayer interface {
	Replay(ctx context.Context, archiveID uuid.UUID) (webhook.Result, error)
}

// Service answers the admin API's queries and performs its audited actions.
type Service struct {
	db       *gorm.DB
	replayer Replayer
	revenue  RevenueSource
	ledger   *credits.Service
}

// New builds the admin service; replayer may be nil, and Replay then fails with ErrNoReplayer; revenue
// may be nil, and the overview then reports no revenue. ledger is the app's: its clock decides what has
// expired in a balance.
func New(db *gorm.DB, replayer Replayer, revenue RevenueSource, ledger *credits.Service) *Service {
	return &Service{db: db, replayer: replayer, revenue: revenue, ledger: ledger}
}

// UnauthorizedEvery is how often a refused admin request of one user is audited at most.
const UnauthorizedEvery = time.Minute

// RecordUnauthorized writes the audit row of a refused admin request, at most one per user per
// UnauthorizedEvery (a script hammering the admin API cannot grow the table without bound), with the
// request's method and path only (never the query, which may carry search terms such as e-mail addresses).
func (s *Service) RecordUnauthorized(ctx context.Context, a audit.Actor, method, path string) error {
	// The path is the caller's input: clipped to the column, so a long one cannot turn the 403 into a 500.
	path = clip(path, maxResourceIDLen)
	_, err := audit.WriteAtMostEvery(ctx, s.db,
		a.Entry(ActionUnauthorized, "admin_api", path, map[string]any{"method": method, "path": path}), UnauthorizedEvery)
	return err
}

// maxResourceIDLen is audit_logs.resource_id's VARCHAR length.
const maxResourceIDLen = 255

// clip makes s storable in a Postgres text column: valid UTF-8, no NUL, at most n bytes.
func clip(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") // drops a rune the cut split
	}
	return s
}
