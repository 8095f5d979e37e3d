package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"
)

// Replay sentinels.
var (
	// ErrNotReplayable means the delivery was processed: there is nothing to redo.
	ErrNotReplayable = errors.New("delivery was processed; nothing to replay")
	// ErrMalformedArchive means the archived delivery never had a readable envelope; fix and resend it from
	// the provider instead.
	ErrMalformedArchive = errors.New("archived delivery has no readable envelope")
	// ErrRedacted means the delivery's body was redacted when its user was erased (RedactTx): what is left
	// is not the event, so it cannot be run again.
	ErrRedacted = errors.New("delivery was redacted at an erasure; its body is gone")
)

// Replay re-runs an archived delivery's stored body through the same idempotent transaction: a new
// archive row (source replay) linked to the original (replay_of), the same (provider, event_id) claim, so
// a claim that already exists makes it a no-op (archived skipped). The stored body was verified when it
// arrived, and the caller is an authenticated operator, so the signature is not checked again.
func (p *Pipeline) Replay(ctx context.Context, archiveID uuid.UUID) (Result, error) {
	orig, err := ArchivedByID(ctx, p.db, archiveID)
	if err != nil {
		return Result{}, fmt.Errorf("replay %s: %w", archiveID, err)
	}
	if orig.RedactedAt != nil {
		return Result{}, ErrRedacted
	}
	if orig.ProcessingStatus == StatusProcessed {
		return Result{}, ErrNotReplayable
	}
	prov, ok := p.providers[orig.Provider]
	if !ok {
		return Result{}, ErrUnknownProvider
	}
	env := Envelope{ID: orig.EventID, Type: orig.EventType}
	if err := env.validate(); err != nil || !json.Valid(orig.Body) {
		return Result{}, ErrMalformedArchive
	}
	// The replay's archive row names the same subjects as its original: read them from the body again.
	read, err := prov.ReadEnvelope(http.Header{}, orig.Body)
	if err != nil {
		read.Subjects = nil
	}
	sig := ""
	if orig.Signature != nil {
		sig = *orig.Signature
	}
	return p.process(ctx, prov, delivery{ev: Event{Provider: prov.Name, ID: orig.EventID, Type: orig.EventType, Payload: orig.Body},
		sig: sig, source: SourceReplay, replayOf: &orig.ID, subjects: read.Subjects})
}
