// Package audit writes the audit trail: one row per privileged or state-changing action, in the caller's
// transaction so the record commits exactly when the action does.
package audit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Actors of system-initiated actions; users and admins are "user:<clerk id>" and "admin:<email>".
const (
	ActorClerk  = "clerk:webhook"
	ActorPaddle = "paddle:webhook"
	ActorSystem = "system"
)

// Entry is one audit row. Details must be a curated allow-list of fields for the action, never a whole
// payload: audit rows are kept indefinitely and exported to the user.
type Entry struct {
	Actor        string
	Action       string
	UserID       *uuid.UUID
	ResourceType string
	ResourceID   string
	Details      map[string]any
	IP           string
}

// Write inserts e using tx.
func Write(ctx context.Context, tx *gorm.DB, e Entry) error {
	details := []byte("{}")
	if len(e.Details) > 0 {
		var err error
		if details, err = json.Marshal(e.Details); err != nil {
			return fmt.Errorf("audit %s: %w", e.Action, err)
		}
	}
	var ip *string
	if e.IP != "" {
		ip = &e.IP
	}
	err := tx.WithContext(ctx).Exec(`INSERT INTO audit_logs (actor, action, user_id, resource_type, resource_id, details, ip)
		VALUES (?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS inet))`,
		e.Actor, e.Action, e.UserID, e.ResourceType, e.ResourceID, string(details), ip).Error
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}

// ForUserTx returns every audit row about userID, oldest first (the GDPR export includes the processing log).
func ForUserTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID) ([]models.AuditLog, error) {
	rows := []models.AuditLog{}
	if err := tx.WithContext(ctx).Where("user_id = ?", userID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("audit rows of user: %w", err)
	}
	return rows, nil
}
