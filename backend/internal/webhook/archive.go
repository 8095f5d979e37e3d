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
// It is range-partitioned by month on created_at (partitions.go); every read below works across partitions.

// ArchivedDelivery is an archive row as operators see it. The signature value is read only by replay, never
// shown: the view says whether one was stored.
type ArchivedDelivery struct {
	ID               uuid.UUID
	Provider         string
	EventID          string
	EventType        string
	Source           string
	ProcessingStatus string
	ErrorMessage     *string
	ReplayOf         *uuid.UUID
	CreatedAt        time.Time
	HasSignature     bool
	// RedactedAt is when the body was redacted at an erasure (RedactTx); nil while it is the delivery.
	RedactedAt *time.Time
	// Body is the raw delivery; nil in lists.
	Body      []byte
	Signature *string `gorm:"-"`
}

// Payload is the body as JSON when it is JSON (nearly always), else nil: see BodyText.
func (w ArchivedDelivery) Payload() json.RawMessage {
	if len(w.Body) > 0 && json.Valid(w.Body) {
		return json.RawMessage(w.Body)
	}
	return nil
}

// BodyText is the body as displayable text (valid UTF-8, no NUL), for a body that is not JSON.
func (w ArchivedDelivery) BodyText() string { return sanitize(string(w.Body), len(w.Body)) }

// archiveColumns is the list view: no body (large, personal data) and no signature.
const archiveColumns = "id, provider, event_id, event_type, source, processing_status, error_message, replay_of, created_at, " +
	"signature IS NOT NULL AS has_signature, redacted_at"

// ArchiveFilter selects archived deliveries; zero fields do not filter. Provider and Status are compared
// lower-cased (the stored spelling), Type and EventID exactly; Since is inclusive, Until exclusive.
type ArchiveFilter struct {
	Provider, Status, Type, EventID string
	Since, Until                    *time.Time
}

// ListArchive lists archived deliveries newest first, without bodies, keyset-paginated. A time range
// lets Postgres skip whole partitions.
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
	if f.EventID != "" {
		q = q.Where("event_id = ?", f.EventID)
	}
	if f.Since != nil {
		q = q.Where("created_at >= ?", *f.Since)
	}
	if f.Until != nil {
		q = q.Where("created_at < ?", *f.Until)
	}
	items, next, err := db.Keyset(q, p.Limit, p.Cursor, func(w ArchivedDelivery) (time.Time, uuid.UUID) { return w.CreatedAt, w.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list webhook archive: %w", err)
	}
	return items, next, nil
}

// ArchivedByID returns one archived delivery with its body; db.ErrNotFound when there is none.
func ArchivedByID(ctx context.Context, tx *gorm.DB, id uuid.UUID) (ArchivedDelivery, error) {
	var rows []struct {
		ArchivedDelivery
		Signature *string
	}
	err := tx.WithContext(ctx).Table("webhook_events").Select(archiveColumns+", body, signature").Where("id = ?", id).
		Limit(1).Scan(&rows).Error
	if err != nil {
		return ArchivedDelivery{}, fmt.Errorf("webhook event %s: %w", id, db.Translate(err))
	}
	if len(rows) == 0 {
		return ArchivedDelivery{}, fmt.Errorf("webhook event %s: %w", id, db.ErrNotFound)
	}
	w := rows[0].ArchivedDelivery
	w.Signature = rows[0].Signature
	return w, nil
}

// Attempts lists every archived delivery of one event (duplicates, replays, pulls), oldest first, without
// bodies; bounded, since a provider retries an event a few dozen times at most.
func Attempts(ctx context.Context, tx *gorm.DB, provider, eventID string) ([]ArchivedDelivery, error) {
	out := []ArchivedDelivery{}
	err := tx.WithContext(ctx).Table("webhook_events").Select(archiveColumns).
		Where("provider = ? AND event_id = ?", provider, eventID).Order("created_at, id").Limit(200).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("attempts of %s %s: %w", provider, eventID, err)
	}
	return out, nil
}

// Claim is an event's dedup claim as operators see it.
type Claim struct {
	EventType   string
	ProcessedAt time.Time
}

// ClaimOf returns the event's claim, if it was ever processed (a failed delivery leaves none).
func ClaimOf(ctx context.Context, tx *gorm.DB, provider, eventID string) (*Claim, error) {
	var rows []Claim
	if err := tx.WithContext(ctx).Raw(`SELECT event_type, processed_at FROM processed_webhook_events
		WHERE provider = ? AND event_id = ?`, provider, eventID).Scan(&rows).Error; err != nil {
		return nil, fmt.Errorf("claim of %s %s: %w", provider, eventID, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &rows[0], nil
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

// OutcomeDay is how many deliveries were archived on one UTC day with one processing status.
type OutcomeDay struct {
	Day    time.Time
	Status string
	Count  int64
}

// DeliveriesPerDayTx counts the deliveries archived since since per UTC day and processing status (the
// admin overview). The partitions' primary key (created_at, id) bounds the scan to the window.
func DeliveriesPerDayTx(ctx context.Context, tx *gorm.DB, since time.Time) ([]OutcomeDay, error) {
	out := []OutcomeDay{}
	err := tx.WithContext(ctx).Raw(`SELECT date_trunc('day', created_at AT TIME ZONE 'UTC') AS day,
		processing_status AS status, count(*) AS count FROM webhook_events WHERE created_at >= ?
		GROUP BY 1, 2 ORDER BY 1, 2`, since).Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("deliveries per day: %w", err)
	}
	return out, nil
}
