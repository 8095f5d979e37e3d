package app

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/sentrytest"
)

// SENTRY_DSN wires reporting into the real router: an unexpected error on an authenticated route reaches
// Sentry tagged with SENTRY_ENVIRONMENT, without the session token or the query.
func TestSentryDSNReportsUnexpectedErrors(t *testing.T) {
	t.Parallel()
	rec := &sentrytest.Transport{}
	a := appOn(t, pgtest.New(t), map[string]string{"SENTRY_DSN": "https://public@sentry.example/42",
		"SENTRY_ENVIRONMENT": "ci"}, Options{SentryTransport: rec})
	a.Echo().GET("/api/v1/explode", func(echo.Context) error { return errors.New("boom") })
	req := httptest.NewRequest(http.MethodGet, "/api/v1/explode?email=ada@example.com", nil)
	req.Header.Set("Authorization", "Bearer session-token-value")
	resp := httptest.NewRecorder()
	a.Echo().ServeHTTP(resp, req)
	require.Equal(t, http.StatusInternalServerError, resp.Code)
	require.Equal(t, http.StatusOK, get(a.Echo(), "/health").Code)
	events := rec.Events()
	require.Len(t, events, 1)
	ev := events[0]
	require.Equal(t, "ci", ev.Environment)
	require.Equal(t, "boom", ev.Exception[0].Value)
	require.False(t, strings.Contains(ev.Request.URL+ev.Request.QueryString, "ada@example.com"))
	require.Empty(t, ev.Request.Headers)
}
