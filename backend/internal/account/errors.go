package account

import (
	"errors"
	"strings"
)

// ErrDeleted means the account is soft-deleted: the API answers 410 until it is restored.
var ErrDeleted = errors.New("account deleted")

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

// FieldNames lists the fields, for the API's error message.
func (e *FieldError) FieldNames() []string { return e.Fields }

// Unwrap makes errors.Is see the sentinel.
func (e *FieldError) Unwrap() error { return e.Err }
