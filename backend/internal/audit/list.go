package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Filter selects audit rows; zero fields do not filter. Action matches exactly, Actors any of theirs; Since
// is inclusive, Until exclusive.
type Filter struct {
	UserID *uuid.UUID
	Action string
	// Actors has no index of its own: combine it with UserID or Action (each indexed with created_at).
	Actors       []string
	Since, Until *time.Time
}

// List returns audit rows newest first, keyset-paginated.
func List(ctx context.Context, tx *gorm.DB, f Filter, p db.Page) ([]models.AuditLog, string, error) {
	// host(ip): the inet column as plain text ("192.0.2.1", not "192.0.2.1/32"), which pgx scans into a string.
	q := tx.WithContext(ctx).Model(&models.AuditLog{}).
		Select("id, actor, action, user_id, resource_type, resource_id, details, host(ip) AS ip, created_at")
	if f.UserID != nil {
		q = q.Where("user_id = ?", *f.UserID)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if len(f.Actors) > 0 {
		q = q.Where("actor IN ?", f.Actors)
	}
	if f.Since != nil {
		q = q.Where("created_at >= ?", *f.Since)
	}
	if f.Until != nil {
		q = q.Where("created_at < ?", *f.Until)
	}
	items, next, err := db.Keyset(q, p.Limit, p.Cursor, func(a models.AuditLog) (time.Time, uuid.UUID) { return a.CreatedAt, a.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list audit log: %w", err)
	}
	return items, next, nil
}
