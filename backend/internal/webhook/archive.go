package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// The archive (webhook_events) belongs to this package: the pipeline writes it, and the reads operators
// need (lists, one delivery, counts) are here too, so a change to the archive's shape stays in one place.

// ArchivedDelivery is an archive row as operators see it. The signature never leaves the database: only
// whether one was stored.
type ArchivedDelivery struct {
	ID               uuid.UUID
	Provider         string
	EventID          string
	EventType        string
	ProcessingStatus string
	ErrorMessage     *string
	ReplayOf         *uuid.UUID
	CreatedAt        time.Time
	HasSignature     bool
	// Payload is the stored body (JSON); nil in lists.
	Payload json.RawMessage
}

// archiveColumns is the list view: no payload (large, personal data) and no signature.
const archiveColumns = "id, provider, event_id, event_type, processing_status, error_message, replay_of, created_at, " +
	"signature IS NOT NULL AS has_signature"

// ArchiveFilter selects archived deliveries; zero fields do not filter. Provider and Status are compared
// lower-cased (the stored spelling), Type exactly; Since is inclusive.
type ArchiveFilter struct {
	Provider, Status, Type string
	Since                  *time.Time
}

// ListArchive lists archived deliveries newest first, without payloads, keyset-paginated.
func ListArchive(ctx context.Context, tx *gorm.DB, f ArchiveFilter, p db.Page) ([]ArchivedDelivery, string, error) {
	q := tx.WithContext(ctx).Table("webhook_events").Select(archiveColumns)
	if f.Provider != "" {
		q = q.Where("provider = ?", strings.ToLower(f.Provider))
	}
	if f.Status != "" {
		q = q.Where("processing_status = ?", strings.ToLower(f.Status))
	}
	if f.Type != "" {
		q = q.Where("event_type = ?", f.Type)
	}
	if f.Since != nil {
		q = q.Where("created_at >= ?", *f.Since)
	}
	items, next, err := db.Keyset(q, p.Limit, p.Cursor, func(w ArchivedDelivery) (time.Time, uuid.UUID) { return w.CreatedAt, w.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list webhook archive: %w", err)
	}
	return items, next, nil
}

// ArchivedByID returns one archived delivery with its payload; db.ErrNotFound when there is none.
func ArchivedByID(ctx context.Context, tx *gorm.DB, id uuid.UUID) (ArchivedDelivery, error) {
	var w ArchivedDelivery
	err := tx.WithContext(ctx).Table("webhook_events").Select(archiveColumns+", payload").Where("id = ?", id).Take(&w).Error
	if err != nil {
		return ArchivedDelivery{}, fmt.Errorf("webhook event %s: %w", id, db.Translate(err))
	}
	return w, nil
}

// DeliveryCount is the number of archived deliveries of one provider in one processing status. Replays
// count as deliveries: each has its own archive row.
type DeliveryCount struct {
	Provider string
	Status   string
	Count    int64
}

// CountDeliveriesTx counts the deliveries archived in the window before the transaction's now().
func CountDeliveriesTx(ctx context.Context, tx *gorm.DB, window time.Duration) ([]DeliveryCount, error) {
	out := []DeliveryCount{}
	err := tx.WithContext(ctx).Raw(`SELECT provider, processing_status AS status, count(*) AS count FROM webhook_events
		WHERE created_at > now() - make_interval(secs => ?) GROUP BY provider, processing_status
		ORDER BY provider, processing_status`, window.Seconds()).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("count deliveries: %w", err)
	}
	return out, nil
}
