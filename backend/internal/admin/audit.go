package admin

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// AuditFilter selects audit rows; zero fields do not filter. Action matches exactly; Since is inclusive.
type AuditFilter struct {
	UserID *uuid.UUID
	Action string
	Since  *time.Time
	Page
}

// AuditLog lists audit rows newest first.
func (s *Service) AuditLog(ctx context.Context, f AuditFilter) ([]models.AuditLog, string, error) {
	// host(ip): the inet column as plain text ("192.0.2.1", not "192.0.2.1/32"), which pgx scans into a string.
	q := s.db.WithContext(ctx).Model(&models.AuditLog{}).
		Select("id, actor, action, user_id, resource_type, resource_id, details, host(ip) AS ip, created_at")
	if f.UserID != nil {
		q = q.Where("user_id = ?", *f.UserID)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.Since != nil {
		q = q.Where("created_at >= ?", *f.Since)
	}
	items, next, err := list(q, f.Page, func(a models.AuditLog) (time.Time, uuid.UUID) { return a.CreatedAt, a.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list audit log: %w", err)
	}
	return items, next, nil
}
