package paddleapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/PaddleHQ/paddle-go-sdk/v4/pkg/paddleerr"
)

// conflictCodes are Paddle error codes (sent with 400 as well as 409) that
// mean "not in this state" rather than "malformed request", for the four
// subscription actions we call. Callers can show them as a conflict instead of
// a bug. Codes from the SDK's subscriptions.go and shared.go.
var conflictCodes = map[string]bool{
	"conflict":                                true, // generic 409
	"concurrent_modification":                 true, // another change raced ours
	"subscription_locked_pending_changes":     true, // earlier change still being applied
	"subscription_locked_processing":          true, // payment or change in progress
	"subscription_locked_renewal":             true, // renewal in progress
	"subscription_update_when_canceled":       true, // update/reprice a canceled subscription
	"subscription_update_when_past_due":       true, // reprice while past due
	"subscription_is_canceled_action_invalid": true, // cancel/resume an already canceled one
	"subscription_is_inactive_action_invalid": true, // act on an inactive subscription
	"subscription_must_be_paused":             true, // resume one that is not paused
	"subscription_not_active":                 true, // action needs an active subscription
}

// apiError carries the sentinel, a short Paddle description and the
// underlying cause (so callers may still errors.As a *paddleerr.Error).
type apiError struct {
	sentinel error
	msg      string
	cause    error
}

func (e *apiError) Error() string   { return e.sentinel.Error() + " (" + e.msg + ")" }
func (e *apiError) Unwrap() []error { return []error{e.sentinel, e.cause} }

// translate turns the SDK's error for one call into a wrapped sentinel.
// op is the short lower-case operation name, e.g. "cancel subscription".
func (c *Client) translate(ctx context.Context, op string, a *attempts, err error) error {
	if err == nil {
		return nil
	}
	var pe *paddleerr.Error
	isAPIErr := errors.As(err, &pe)
	// Our caller gave up (while waiting to retry, or mid-request): report
	// that, not a Paddle failure. A decoded Paddle answer still wins.
	if ctxErr := ctx.Err(); ctxErr != nil && !isAPIErr {
		return fmt.Errorf("%s: %w", op, ctxErr)
	}
	if a.status >= 200 && a.status < 300 {
		// Paddle accepted the request but the SDK could not decode the body.
		return fmt.Errorf("%s: unreadable paddle response (status %d): %w", op, a.status, err)
	}
	code, detail := "", ""
	if isAPIErr {
		code, detail = pe.Code, pe.Detail
	}
	msg := strings.ReplaceAll(describe(a, code, detail, err), c.apiKey, "[redacted]")
	return fmt.Errorf("%s: %w", op, &apiError{sentinel: classify(a.status, code), msg: msg, cause: err})
}

// describe renders a short "503 service_unavailable: detail; after 4
// attempts" without the SDK's documentation URL and validation list.
func describe(a *attempts, code, detail string, err error) string {
	var parts []string
	if a.status != 0 {
		parts = append(parts, fmt.Sprint(a.status))
	}
	switch {
	case code != "":
		parts = append(parts, code)
	case a.status == 0:
		parts = append(parts, "network error")
		detail = err.Error()
	}
	desc := strings.Join(parts, " ")
	if detail != "" {
		desc += ": " + truncate(detail, 200)
	}
	if a.count > 1 {
		desc += fmt.Sprintf("; after %d attempts", a.count)
	}
	return desc
}

// classify maps an HTTP status and Paddle error code to a sentinel. status 0
// means no response at all (network error or timeout, after retries).
func classify(status int, code string) error {
	switch {
	case status == 0, status == http.StatusTooManyRequests, status >= 500:
		return ErrUnavailable
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusConflict, conflictCodes[code]:
		return ErrConflict
	default:
		return ErrRejected
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
