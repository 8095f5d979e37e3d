package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// WebhookEvent is an archived delivery as operators see it. The signature never leaves the database:
// only whether one was stored.
type WebhookEvent struct {
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

// webhookColumns is the list view: no payload (large, personal data) and no signature.
const webhookColumns = "id, provider, event_id, event_type, processing_status, error_message, replay_of, created_at, " +
	"signature IS NOT NULL AS has_signature"

// WebhookFilter selects archived deliveries; zero fields do not filter. Provider and Status are compared
// lower-cased (the stored spelling), Type exactly; Since is inclusive.
type WebhookFilter struct {
	Provider, Status, Type string
	Since                  *time.Time
	Page
}

// Replayed is the outcome of one replay request.
type Replayed struct {
	EventID string
	// Status is the new archive row's processing_status: processed, skipped (the event was already
	// claimed), ignored or failed (the handler failed again).
	Status   string
	ReplayOf uuid.UUID
}

// WebhookEvents lists archived deliveries newest first, without payloads.
func (s *Service) WebhookEvents(ctx context.Context, f WebhookFilter) ([]WebhookEvent, string, error) {
	q := s.db.WithContext(ctx).Table("webhook_events").Select(webhookColumns)
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
	items, next, err := list(q, f.Page, func(w WebhookEvent) (time.Time, uuid.UUID) { return w.CreatedAt, w.ID })
	if err != nil {
		return nil, "", fmt.Errorf("list webhook events: %w", err)
	}
	return items, next, nil
}

// WebhookEvent returns one archived delivery with its payload; db.ErrNotFound when there is none.
func (s *Service) WebhookEvent(ctx context.Context, id uuid.UUID) (WebhookEvent, error) {
	var w WebhookEvent
	err := s.db.WithContext(ctx).Table("webhook_events").Select(webhookColumns+", payload").
		Where("id = ?", id).Take(&w).Error
	if err != nil {
		return WebhookEvent{}, fmt.Errorf("webhook event %s: %w", id, db.Translate(err))
	}
	return w, nil
}

// Replay re-runs an archived delivery through the pipeline and audits it once. A processed delivery is
// refused (webhook.ErrNotReplayable) and an unknown one is db.ErrNotFound; neither ran, so neither is
// audited. A handler that fails again is an outcome, not an error: the new archive row records it.
func (s *Service) Replay(ctx context.Context, a audit.Actor, archiveID uuid.UUID) (Replayed, error) {
	if s.replayer == nil {
		return Replayed{}, ErrNoReplayer
	}
	res, err := s.replayer.Replay(ctx, archiveID)
	if err != nil && !(errors.Is(err, webhook.ErrHandlerFailed) && res.Status == webhook.StatusFailed) {
		return Replayed{}, fmt.Errorf("replay webhook event: %w", err)
	}
	// The pipeline commits its own transaction, so this row follows it: were it to fail, the replay still
	// happened, and the new archive row (replay_of) remains its record.
	err = audit.Write(ctx, s.db, a.AsAdmin().Entry(ActionWebhookReplayed, "webhook_event", archiveID.String(),
		map[string]any{"webhook_event_id": archiveID.String(), "result_status": res.Status}))
	if err != nil {
		return Replayed{}, err
	}
	return Replayed{EventID: res.EventID, Status: res.Status, ReplayOf: archiveID}, nil
}
