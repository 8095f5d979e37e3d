package account

import (
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
)

// DefaultDeletionGrace is the restore window of a soft-deleted account when Config.DeletionGrace is unset.
const DefaultDeletionGrace = 30 * 24 * time.Hour

// Sentinels of the account API, returned wrapped; httpapi maps them to 401/422.
var (
	// ErrFieldNotAllowed means a profile update named a field outside the allow-list (a FieldError names them).
	ErrFieldNotAllowed = errors.New("field not allowed")
	// ErrInvalidField means an allowed field had a value of the wrong type, length or format.
	ErrInvalidField = errors.New("invalid field value")
	// ErrBadUnsubscribeToken means an unsubscribe token is missing, malformed or not signed by us.
	ErrBadUnsubscribeToken = errors.New("invalid unsubscribe token")
)

// FieldError names the request fields behind ErrFieldNotAllowed or ErrInvalidField, so the client learns
// which of its fields to fix. Names only: values may be personal data.
type FieldError struct {
	Err    error
	Fields []string
}

// Error lists the fields after the sentinel's text.
func (e *FieldError) Error() string { return e.Err.Error() + ": " + strings.Join(e.Fields, ", ") }

// Unwrap makes errors.Is see the sentinel.
func (e *FieldError) Unwrap() error { return e.Err }

// Actor is the authenticated user calling the API, as the audit trail records them.
type Actor struct {
	UserID      uuid.UUID
	ClerkUserID string
	IP          string
}

func (a Actor) name() string { return "user:" + a.ClerkUserID }

// Audit actions this package writes besides the Clerk event names.
const (
	ActionUpdated        = "account.updated"
	ActionDeleted        = "account.deleted"
	ActionRestored       = "account.restored"
	ActionExported       = "account.exported"
	ActionConsentUpdated = "account.consent_updated"
	ActionUnsubscribed   = "email.unsubscribed"
	ActionHardDeleted    = "user.hard_deleted"
)

// Sources recorded in users.marketing_consent_source.
const (
	ConsentSourceAPI         = "api"
	ConsentSourceUnsubscribe = "unsubscribe_link"
)

func (s *Service) grace() time.Duration {
	if s.cfg.DeletionGrace > 0 {
		return s.cfg.DeletionGrace
	}
	return DefaultDeletionGrace
}
