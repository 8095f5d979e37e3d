package webhook

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// Replay sentinels.
var (
	// ErrNotReplayable means the delivery was processed: there is nothing to redo.
	ErrNotReplayable = errors.New("delivery was processed; nothing to replay")
	// ErrMalformedArchive means the archived delivery never had a readable envelope; fix and resend it from
	// the provider instead.
	ErrMalformedArchive = errors.New("archived delivery has no readable envelope")
)

// Replay re-runs an archived delivery's stored payload through the same idempotent transaction: a new
// archive row linked to the original (replay_of), the same (provider, event_id) claim, so a claim that
// already exists makes it a no-op (archived skipped). The stored payload was verified when it arrived,
// and the caller is an authenticated operator, so the signature is not checked again.
func (p *Pipeline) Replay(ctx context.Context, archiveID uuid.UUID) (Result, error) {
	var orig models.WebhookEvent
	if err := p.db.WithContext(ctx).Where("id = ?", archiveID).Take(&orig).Error; err != nil {
		return Result{}, fmt.Errorf("replay %s: %w", archiveID, db.Translate(err))
	}
	if orig.ProcessingStatus == StatusProcessed {
		return Result{}, ErrNotReplayable
	}
	prov, ok := p.providers[orig.Provider]
	if !ok {
		return Result{}, ErrUnknownProvider
	}
	env := Envelope{ID: orig.EventID, Type: orig.EventType}
	if err := env.validate(); err != nil || (len(orig.Payload) > 0 && orig.Payload[0] == '"') {
		return Result{}, ErrMalformedArchive
	}
	sig := ""
	if orig.Signature != nil {
		sig = *orig.Signature
	}
	ev := Event{Provider: prov.Name, ID: orig.EventID, Type: orig.EventType, Payload: orig.Payload}
	return p.process(ctx, prov, ev, sig, &orig.ID)
}
