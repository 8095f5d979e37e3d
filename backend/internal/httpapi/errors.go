package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
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

// ErrorCode maps a domain sentinel to its response: a row of the error table. Domain packages never know
// about HTTP; the error table is the only place their errors meet status codes. A module of the app
// brings its own rows (Deps.Errors) rather than editing the table.
type ErrorCode struct {
	Err     error
	Status  int
	Code    string
	Message string
}

// errorMap is the one table from domain sentinels to responses. Each API area declares its part beside
// its handlers; they meet here, and a test forbids a sentinel appearing twice. Deps.Errors (the modules'
// rows) follow it.
var errorMap = slices.Concat(dataErrors, webhookErrors, sessionErrors, accountErrors, billingErrors,
	creditsErrors, adminErrors, feedbackErrors, broadcastErrors, usageErrors)

// dataErrors are the db package's sentinels, which any area can surface.
var dataErrors = []ErrorCode{
	{db.ErrNotFound, http.StatusNotFound, "not_found", "not found"},
	{db.ErrBadCursor, http.StatusBadRequest, "bad_request", "invalid cursor"},
}

// fieldNamer is a domain error that names the request fields at fault (account.FieldError,
// credits.TextError). The table's fixed message stays; the names are appended so the client knows what to
// fix. Names only: values may be personal data.
type fieldNamer interface {
	FieldNames() []string
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

// CheckErrors refuses module rows that map a sentinel the table, or another row, already maps (a second
// row would be dead: the first match wins) or that lack a code or message. App runs it at boot.
func CheckErrors(extra []ErrorCode) error {
	seen := map[error]bool{}
	for _, s := range errorMap {
		seen[s.Err] = true
	}
	var errs []error
	for _, s := range extra {
		switch {
		case s.Err == nil || s.Status == 0 || s.Code == "" || s.Message == "":
			errs = append(errs, fmt.Errorf("error row %v: needs a sentinel, a status, a code and a message", s))
		case seen[s.Err]:
			errs = append(errs, fmt.Errorf("sentinel %q is mapped twice", s.Err))
		}
		seen[s.Err] = true
	}
	return errors.Join(errs...)
}

// resolve turns any error into (status, body) through table (errorMap, then the modules' rows). Unknown errors become 500 internal_error and are the only
// ones logged here: their detail goes to the log, never to the client.
func resolve(err error, table []ErrorCode) (int, ErrorDetail, bool) {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Status, ErrorDetail{Code: apiErr.Code, Message: apiErr.Message}, false
	}
	for _, s := range table {
		if errors.Is(err, s.Err) {
			msg := s.Message
			var named fieldNamer
			if errors.As(err, &named) {
				msg += ": " + strings.Join(named.FieldNames(), ", ")
			}
			return s.Status, ErrorDetail{Code: s.Code, Message: msg}, false
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

func errorHandler(log *slog.Logger, table []ErrorCode) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			// A streamed answer (the export) failed after its status went out: no error answer can follow,
			// but the failure is still logged once (a client that went away is the common cause).
			requestLog(c, log).WarnContext(c.Request().Context(), "request failed after the response started", keyError, err.Error())
			return
		}
		status, detail, unexpected := resolve(err, table)
		if unexpected {
			requestLog(c, log).ErrorContext(c.Request().Context(), "request failed", keyError, err.Error())
			report(c, err)
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
