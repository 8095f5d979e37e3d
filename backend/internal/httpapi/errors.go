package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/billing/paddleapi"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/session"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// ErrorBody is the one error shape every endpoint returns: a stable machine code and a human message.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the content of ErrorBody.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// APIError is an error a handler returns to answer with a specific status and code.
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// NewError builds an APIError.
func NewError(status int, code, message string) *APIError {
	return &APIError{Status: status, Code: code, Message: message}
}

// sentinel maps a domain error to its response. Domain packages never know about HTTP; this table is the
// only place their errors meet status codes. Later capabilities append their sentinels here.
type sentinel struct {
	err     error
	status  int
	code    string
	message string
}

// errorMap is the one table from domain sentinels to responses: the core entries below, then one table per
// API area, each declared beside its handlers.
var errorMap = slices.Concat(coreErrors, accountErrors, creditsAPIErrors, adminErrors)

var coreErrors = []sentinel{
	// Webhooks: every signature failure is a 401 and writes nothing; providers retry non-2xx, which heals a
	// secret rotated on their side before ours.
	{webhook.ErrMissingSignature, http.StatusUnauthorized, "invalid_signature", "missing webhook signature"},
	{webhook.ErrMalformedSignature, http.StatusUnauthorized, "invalid_signature", "malformed webhook signature"},
	{webhook.ErrStaleSignature, http.StatusUnauthorized, "invalid_signature", "webhook signature timestamp outside tolerance"},
	{webhook.ErrBadSignature, http.StatusUnauthorized, "invalid_signature", "webhook signature does not match"},
	{webhook.ErrMalformed, http.StatusBadRequest, "malformed_payload", "webhook payload cannot be read"},
	{webhook.ErrHandlerFailed, http.StatusInternalServerError, "handler_failed", "webhook handler failed; it will be retried"},
	{webhook.ErrUnknownProvider, http.StatusNotFound, "not_found", "unknown webhook provider"},
	{webhook.ErrNotReplayable, http.StatusConflict, "not_replayable", "this delivery was processed; there is nothing to replay"},
	{webhook.ErrMalformedArchive, http.StatusConflict, "not_replayable", "this delivery was never readable; resend it from the provider"},

	{credits.ErrInsufficient, http.StatusPaymentRequired, "insufficient_credits", "not enough credits"},
	{credits.ErrInvalidAmount, http.StatusUnprocessableEntity, "validation_failed", "amount must be a positive integer"},
	{credits.ErrInvalidJobID, http.StatusUnprocessableEntity, "validation_failed", "job_id is required"},
	{credits.ErrJobConflict, http.StatusConflict, "job_conflict", "job_id already used for a different operation"},
	{credits.ErrNoDeduct, http.StatusNotFound, "not_found", "no credit deduction for this job"},
	{credits.ErrBadCursor, http.StatusBadRequest, "bad_request", "invalid cursor"},
	{db.ErrNotFound, http.StatusNotFound, "not_found", "not found"},

	// Sessions: any token problem is a 401; a JWKS outage is ours, not the client's.
	{session.ErrMissingToken, http.StatusUnauthorized, "unauthorized", "missing bearer token"},
	{session.ErrInvalidToken, http.StatusUnauthorized, "unauthorized", "invalid or expired session token"},
	{session.ErrUnconfigured, http.StatusUnauthorized, "unauthorized", "session verification is not configured"},
	{session.ErrKeysUnavailable, http.StatusServiceUnavailable, "unavailable", "cannot verify sessions right now"},
	{account.ErrDeleted, http.StatusGone, "account_deleted", "this account is deleted"},

	{billing.ErrAlreadySubscribed, http.StatusConflict, "already_subscribed", "you already have an active subscription; change tier instead"},
	{billing.ErrFreeTierCheckout, http.StatusConflict, "free_tier", "the free tier needs no checkout"},
	{billing.ErrUnknownTier, http.StatusUnprocessableEntity, "unknown_tier", "unknown tier"},
	{billing.ErrNoSubscription, http.StatusConflict, "no_subscription", "no active subscription"},
	{billing.ErrSameTier, http.StatusConflict, "same_tier", "already on this tier"},
	{billing.ErrNotPaused, http.StatusConflict, "not_paused", "the subscription is not paused"},
	{billing.ErrNoPaddleAPI, http.StatusServiceUnavailable, "unavailable", "billing management is not configured"},
	{paddleapi.ErrConflict, http.StatusConflict, "paddle_conflict", "paddle refused the change in the subscription's current state"},
	{paddleapi.ErrNotFound, http.StatusConflict, "paddle_conflict", "paddle does not know this subscription"},
	{paddleapi.ErrUnavailable, http.StatusBadGateway, "paddle_unavailable", "paddle is unavailable; try again"},
	{paddleapi.ErrRejected, http.StatusBadGateway, "paddle_rejected", "paddle rejected the request"},
}

// codeForStatus names the framework's own errors (404 route, 405, 413 body limit, ...).
var codeForStatus = map[int]string{
	http.StatusBadRequest:            "bad_request",
	http.StatusUnauthorized:          "unauthorized",
	http.StatusForbidden:             "forbidden",
	http.StatusNotFound:              "not_found",
	http.StatusMethodNotAllowed:      "method_not_allowed",
	http.StatusConflict:              "conflict",
	http.StatusGone:                  "gone",
	http.StatusRequestEntityTooLarge: "payload_too_large",
	http.StatusUnsupportedMediaType:  "unsupported_media_type",
	http.StatusUnprocessableEntity:   "validation_failed",
	http.StatusTooManyRequests:       "rate_limited",
	http.StatusServiceUnavailable:    "unavailable",
}

// resolve turns any error into (status, body). Unknown errors become 500 internal_error and are the only
// ones logged here: their detail goes to the log, never to the client.
func resolve(err error) (int, ErrorDetail, bool) {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Status, ErrorDetail{Code: apiErr.Code, Message: apiErr.Message}, false
	}
	for _, s := range errorMap {
		if errors.Is(err, s.err) {
			return s.status, ErrorDetail{Code: s.code, Message: s.message}, false
		}
	}
	var maxBytes *http.MaxBytesError
	if errors.As(err, &maxBytes) {
		return http.StatusRequestEntityTooLarge, ErrorDetail{Code: "payload_too_large", Message: "request body too large"}, false
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code, ok := codeForStatus[he.Code]
		if !ok {
			code = strings.ReplaceAll(strings.ToLower(http.StatusText(he.Code)), " ", "_")
		}
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok {
			msg = m
		}
		return he.Code, ErrorDetail{Code: code, Message: strings.ToLower(msg)}, he.Code >= 500
	}
	return http.StatusInternalServerError, ErrorDetail{Code: "internal_error", Message: "internal server error"}, true
}

func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		status, detail, unexpected := resolve(err)
		if unexpected {
			requestLog(c, log).ErrorContext(c.Request().Context(), "request failed", keyError, err.Error())
		}
		if c.Request().Method == http.MethodHead {
			err = c.NoContent(status)
		} else {
			err = c.JSON(status, ErrorBody{Error: detail})
		}
		if err != nil {
			log.Error("write error response", keyError, err.Error())
		}
	}
}
