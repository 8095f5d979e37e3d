package admin

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// AuditFilter selects audit rows; zero fields do not filter. Action matches exactly; Since is inclusive,
// Until exclusive.
type AuditFilter struct {
	UserID       *uuid.UUID
	Action       string
	Since, Until *time.Time
	Page
}

// AuditLog lists audit rows newest first.
func (s *Service) AuditLog(ctx context.Context, f AuditFilter) ([]models.AuditLog, string, error) {
	return audit.List(ctx, s.db, audit.Filter{UserID: f.UserID, Action: f.Action, Since: f.Since, Until: f.Until}, f.Page)
}
