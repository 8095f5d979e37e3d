package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"gorm.io/gorm"
)

// Provider names, the provider column of both webhook tables and the last segment of /webhooks/<name>.
const (
	ProviderPaddle = "paddle"
	ProviderClerk  = "clerk"
)

// Processing statuses stored in webhook_events.processing_status (a CHECK constraint holds the column to
// them). The mechanism decides them, so they live here rather than with the row struct.
const (
	StatusPending   = "pending"
	StatusProcessed = "processed"
	StatusSkipped   = "skipped"
	StatusFailed    = "failed"
	StatusIgnored   = "ignored"
)

// Event is one verified delivery as handlers see it.
type Event struct {
	Provider string
	ID       string
	Type     string
	Payload  json.RawMessage
}

// Handler applies an event's effects using tx, the delivery's transaction. Everything it writes commits
// atomically with the dedup claim, or not at all; work outside the database (email) must be a job
// inserted through tx for the same reason. A returned error rolls all of it back and the delivery is
// answered 500 so the provider retries.
type Handler func(ctx context.Context, tx *gorm.DB, ev Event) error

// Envelope is what the pipeline needs to know about a delivery before dispatching it.
type Envelope struct {
	ID   string
	Type string
}

// Provider is everything provider-specific about receiving its webhooks.
type Provider struct {
	// Name is the provider column of both webhook tables, e.g. "paddle".
	Name     string
	Verifier Verifier
	// SignatureHeader is archived with each delivery, for forensics.
	SignatureHeader string
	// ReadEnvelope extracts the idempotency key and event type from a verified delivery.
	ReadEnvelope func(h http.Header, body []byte) (Envelope, error)
	// Handlers maps an event type to its handler; a type with none is claimed and archived as ignored.
	Handlers map[string]Handler
}

// Column limits of the webhook tables; a longer id or type is a malformed delivery, not a 500.
const (
	maxEventIDLen   = 255
	maxEventTypeLen = 128
	// maxErrorLen bounds error_message: a handler error may quote the payload.
	maxErrorLen = 2000
)

var (
	errNoEventID   = errors.New("no event id")
	errNoEventType = errors.New("no event type")
	errIDTooLong   = errors.New("event id longer than 255 characters")
	errTypeTooLong = errors.New("event type longer than 128 characters")
	errBadChars    = errors.New("event id or type is not valid UTF-8 text")
)

func (e Envelope) validate() error {
	switch {
	case e.ID == "":
		return errNoEventID
	case e.Type == "":
		return errNoEventType
	case len(e.ID) > maxEventIDLen:
		return errIDTooLong
	case len(e.Type) > maxEventTypeLen:
		return errTypeTooLong
	case sanitize(e.ID, maxEventIDLen) != e.ID || sanitize(e.Type, maxEventTypeLen) != e.Type:
		return errBadChars
	}
	return nil
}

// PaddleEnvelope reads Paddle's body envelope. The idempotency key is event_id (evt_...), never
// notification_id: each destination and each manual replay gets a new notification for the same event.
func PaddleEnvelope(_ http.Header, body []byte) (Envelope, error) {
	var env struct {
		EventID   string `json:"event_id"`
		EventType string `json:"event_type"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return Envelope{}, err
	}
	return Envelope{ID: env.EventID, Type: env.EventType}, nil
}

// SvixEnvelope reads a Clerk (Svix) delivery. The idempotency key is the svix-id header, which stays the
// same when Svix resends a message; the body's data.id is the user, not the event.
func SvixEnvelope(h http.Header, body []byte) (Envelope, error) {
	var env struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return Envelope{ID: h.Get(SvixIDHeader)}, err
	}
	return Envelope{ID: h.Get(SvixIDHeader), Type: env.Type}, nil
}
