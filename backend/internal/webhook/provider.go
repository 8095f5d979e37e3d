package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
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
	// Subjects are who the delivery is about (Clerk user ids, folded email addresses, Paddle customer ids),
	// archived with it (webhook_events.subjects) so an erasure finds the user's deliveries (RedactTx).
	Subjects []string
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
// The subjects are the checkout's custom_data (clerk_user_id, email), the customer id, and a customer
// entity's own id and email.
func PaddleEnvelope(_ http.Header, body []byte) (Envelope, error) {
	var env struct {
		EventID   string `json:"event_id"`
		EventType string `json:"event_type"`
		Data      struct {
			ID         string `json:"id"`
			CustomerID string `json:"customer_id"`
			Email      string `json:"email"`
			CustomData struct {
				ClerkUserID string `json:"clerk_user_id"`
				Email       string `json:"email"`
			} `json:"custom_data"`
		} `json:"data"`
	}
	if err := decodeEnvelope(body, &env); err != nil {
		return Envelope{}, err
	}
	d := env.Data
	var s subjects
	s.add(d.CustomData.ClerkUserID)
	s.addEmail(d.CustomData.Email)
	s.add(d.CustomerID)
	if strings.HasPrefix(d.ID, "ctm_") {
		s.add(d.ID)
		s.addEmail(d.Email)
	}
	return Envelope{ID: env.EventID, Type: env.EventType, Subjects: s.list()}, nil
}

// SvixEnvelope reads a Clerk (Svix) delivery. The idempotency key is the svix-id header, which stays the
// same when Svix resends a message; the body's data.id is the user, not the event. The subjects are the
// user (a user object's id, or another object's user_id) and every address the payload lists.
func SvixEnvelope(h http.Header, body []byte) (Envelope, error) {
	var env struct {
		Type string `json:"type"`
		Data struct {
			ID             string `json:"id"`
			UserID         string `json:"user_id"`
			ToEmailAddress string `json:"to_email_address"`
			EmailAddresses []struct {
				EmailAddress string `json:"email_address"`
			} `json:"email_addresses"`
		} `json:"data"`
	}
	if err := decodeEnvelope(body, &env); err != nil {
		return Envelope{ID: h.Get(SvixIDHeader)}, err
	}
	d := env.Data
	var s subjects
	if strings.HasPrefix(d.ID, "user_") {
		s.add(d.ID)
	}
	s.add(d.UserID)
	s.addEmail(d.ToEmailAddress)
	for _, e := range d.EmailAddresses {
		s.addEmail(e.EmailAddress)
	}
	return Envelope{ID: h.Get(SvixIDHeader), Type: env.Type, Subjects: s.list()}, nil
}

// decodeEnvelope reads body into env in one pass. A value of an unexpected type under "data" is no reason
// to refuse the delivery (the handler decides what the payload means): only the envelope's own fields, or
// JSON that does not parse, fail it.
func decodeEnvelope(body []byte, env any) error {
	err := json.Unmarshal(body, env)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Field, "data.") {
		return nil
	}
	return err
}

// Bounds of a delivery's subjects: no Clerk id, email address or customer id is longer, and a longer value
// would not fit a GIN index entry.
const (
	maxSubjectLen = 255
	maxSubjects   = 16
)

// subjects collects a delivery's subjects, each once; never nil, so a delivery that names nobody is
// archived with '{}' (read, nobody) rather than NULL (never read).
type subjects struct{ items []string }

func (s *subjects) add(v string) {
	if v == "" || len(v) > maxSubjectLen || strings.ContainsRune(v, 0) || len(s.items) >= maxSubjects || slices.Contains(s.items, v) {
		return
	}
	s.items = append(s.items, v)
}

// addEmail adds an address in the form users.email stores it (email.Fold), so the erasure's lookup by the
// stored address finds it.
func (s *subjects) addEmail(v string) { s.add(email.Fold(v)) }

func (s *subjects) list() []string {
	if s.items == nil {
		return []string{}
	}
	return s.items
}
