// Package audit writes the audit trail: one row per privileged or state-changing action, in the caller's
// transaction so the record commits exactly when the action does.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Actors of system-initiated actions; users and admins are Actor values (Actor.Name).
const (
	ActorClerk  = "clerk:webhook"
	ActorPaddle = "paddle:webhook"
	ActorSystem = "system"
)

// Actor is the authenticated person (or trusted worker) an action is attributed to. It is built once,
// where the request is authenticated (httpapi), and handed to every domain call that audits.
type Actor struct {
	UserID      uuid.UUID
	ClerkUserID string
	Email       string
	IP          string
	// Admin marks an operator acting through the admin API; the trail names them by their admin email.
	Admin bool
	// Worker, when set, is the fingerprint of the service key a worker authenticated with; UserID is then
	// the user whose job the worker acts on, not the caller.
	Worker string
}

const (
	userPrefix   = "user:"
	adminPrefix  = "admin:"
	workerPrefix = "worker:"
)

// Name is the audit_logs.actor value: "user:<clerk id>", "admin:<email>" for an operator, or
// "worker:<key fingerprint>" for a worker (which key acted, never the key).
func (a Actor) Name() string {
	switch {
	case a.Worker != "":
		return workerPrefix + a.Worker
	case a.Admin:
		return adminPrefix + a.Email
	}
	return userPrefix + a.ClerkUserID
}

// AsAdmin is a acting as an operator (the admin gate has let them through).
func (a Actor) AsAdmin() Actor {
	a.Admin = true
	return a
}

// Entry is the audit row of action by a on one resource; UserID and IP come from a.
func (a Actor) Entry(action, resourceType, resourceID string, details map[string]any) Entry {
	return Entry{Actor: a.Name(), Action: action, UserID: &a.UserID, ResourceType: resourceType,
		ResourceID: resourceID, Details: details, IP: a.IP}
}

// Exported is an actor name as a user's GDPR export shows it: which staff member acted is that person's
// data, not the user's, so "admin:<email>" becomes "admin"; that an admin acted stays visible.
func Exported(name string) string {
	if strings.HasPrefix(name, adminPrefix) {
		return "admin"
	}
	return name
}

// Entry is one audit row. Details must be a curated allow-list of fields for the action, never a whole
// payload: audit rows are kept for years (see Purge) and exported to the user.
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
	// db.ExecLater, not GORM's Exec: every webhook delivery with an effect audits it, and nothing reads the
	// row back in the same transaction, so in the webhook pipeline's transaction it rides with the next
	// statement or the COMMIT.
	err := db.ExecLater(ctx, tx, `INSERT INTO audit_logs (actor, action, user_id, resource_type, resource_id, details, ip)
		VALUES ($1, $2, $3, $4, $5, CAST($6 AS jsonb), CAST($7 AS inet))`,
		e.Actor, e.Action, e.UserID, e.ResourceType, e.ResourceID, string(details), ip)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}

// ForUserTx walks every audit row about userID, oldest first, in pages of at most size rows (db.Walk): the
// GDPR export includes the processing log, however long it is. self is the user's own actor name
// (Actor.Name of their session): a row keeps its IP only when the user caused it. The rows a worker, an
// operator or the system wrote about the user carry those callers' IPs (a worker's internal address, an
// operator's office), which are not the user's data to receive.
func ForUserTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, self string, size int, each func([]models.AuditLog) error) error {
	err := db.Walk(func() *gorm.DB {
		return tx.WithContext(ctx).Model(&models.AuditLog{}).
			Select("id, actor, action, user_id, resource_type, resource_id, details, CASE WHEN actor = ? THEN host(ip) END AS ip, created_at", self).
			Where("user_id = ?", userID)
	}, size, func(a models.AuditLog) (time.Time, uuid.UUID) { return a.CreatedAt, a.ID }, each)
	if err != nil {
		return fmt.Errorf("audit rows of user: %w", err)
	}
	return nil
}

// ForgetUserTx anonymises the audit rows about userID when the user is erased: every row loses its IP,
// and the Clerk id, wherever it stands (the actor "user:<id>", the resource id, the details), becomes
// standIn (the user's tombstone hash, which only the service can recompute from a Clerk id it is given);
// the user's address, if given, is replaced in the details as well. user_id stays: it is our own random id,
// meaningless once the user row is gone, and it keeps the rows of one erased user together (the retention
// of their consent records reads it).
func ForgetUserTx(ctx context.Context, tx *gorm.DB, userID uuid.UUID, clerkUserID, addr, standIn string) error {
	if addr == "" {
		addr = clerkUserID // nothing more to replace
	}
	err := tx.WithContext(ctx).Exec(`UPDATE audit_logs SET ip = NULL,
		actor = CASE WHEN actor = $2 THEN $3 ELSE actor END,
		resource_id = CASE WHEN resource_id = $4 THEN $5 ELSE resource_id END,
		details = CASE WHEN strpos(details::text, $4) > 0 OR strpos(details::text, $6) > 0
		          THEN replace(replace(details::text, $4, $5), $6, $5)::jsonb ELSE details END
		WHERE user_id = $1`, userID, userPrefix+clerkUserID, userPrefix+standIn, clerkUserID, standIn, addr).Error
	if err != nil {
		return fmt.Errorf("forget user in audit log: %w", err)
	}
	return nil
}

// RedactDetailsTx replaces the details of the action's rows about any of resourceIDs with
// {"redacted": true}: their free text may quote what an erasure removed elsewhere (a failed delivery's
// error names the user the payload named).
func RedactDetailsTx(ctx context.Context, tx *gorm.DB, action string, resourceIDs []string) error {
	if len(resourceIDs) == 0 {
		return nil
	}
	err := tx.WithContext(ctx).Exec(`UPDATE audit_logs SET details = '{"redacted": true}'
		WHERE action = ? AND resource_id IN ?`, action, resourceIDs).Error
	if err != nil {
		return fmt.Errorf("redact audit details: %w", err)
	}
	return nil
}

// WriteAtMostEvery writes e unless a row with the same action for the same user was written within the
// last every, and reports whether it wrote. It keeps an attacker-triggered action (a refused admin request,
// say) from growing the table without bound. A transaction-scoped advisory lock on (action, user) makes
// concurrent callers take turns, so even a burst writes one row: the check and the insert are not atomic
// on their own under READ COMMITTED.
func WriteAtMostEvery(ctx context.Context, db *gorm.DB, e Entry, every time.Duration) (bool, error) {
	if e.UserID == nil {
		return true, Write(ctx, db, e)
	}
	wrote := false
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(hashtextextended(? || ':' || ?::text, 0))`, e.Action, *e.UserID).Error; err != nil {
			return err
		}
		var recent bool
		if err := tx.Raw(`SELECT EXISTS (SELECT 1 FROM audit_logs WHERE user_id = ? AND action = ?
			AND created_at > now() - make_interval(secs => ?))`, *e.UserID, e.Action, every.Seconds()).Row().Scan(&recent); err != nil {
			return err
		}
		if recent {
			return nil
		}
		wrote = true
		return Write(ctx, tx, e)
	})
	if err != nil {
		return false, fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return wrote, nil
}
