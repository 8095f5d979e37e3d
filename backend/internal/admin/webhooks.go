package admin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// WebhookEvent is an archived delivery as operators see it (webhook.ArchivedDelivery): never the
// signature, only whether one was stored.
type WebhookEvent = webhook.ArchivedDelivery

// WebhookFilter selects archived deliveries; zero fields do not filter. Provider and Status are compared
// lower-cased (the stored spelling), Type exactly; Since is inclusive.
type WebhookFilter struct {
	Provider, Status, Type, EventID string
	Since, Until                    *time.Time
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
	return webhook.ListArchive(ctx, s.db, webhook.ArchiveFilter{Provider: f.Provider, Status: f.Status, Type: f.Type,
		EventID: f.EventID, Since: f.Since, Until: f.Until}, f.Page)
}

// WebhookEventDetail is one delivery with everything an operator needs to see why it failed: its body,
// every attempt of the same event (duplicates, replays, pulls) and the event's claim, if it was ever
// processed.
type WebhookEventDetail struct {
	WebhookEvent
	Attempts []WebhookEvent
	Claim    *webhook.Claim
}

// WebhookEvent returns one archived delivery with its body, attempts and claim; db.ErrNotFound when there
// is none.
func (s *Service) WebhookEvent(ctx context.Context, id uuid.UUID) (WebhookEventDetail, error) {
	var d WebhookEventDetail
	var err error
	if d.WebhookEvent, err = webhook.ArchivedByID(ctx, s.db, id); err != nil {
		return d, err
	}
	if d.Attempts, err = webhook.Attempts(ctx, s.db, d.Provider, d.EventID); err != nil {
		return d, err
	}
	d.Claim, err = webhook.ClaimOf(ctx, s.db, d.Provider, d.EventID)
	return d, err
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
