package httpapi

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/sentrytest"
)

// Unexpected errors and panics reach Sentry once each, without the Authorization header, cookies, the query
// string or the body; answered errors (4xx, a domain sentinel) never do.
func TestSentryReportsUnexpectedErrorsWithoutPersonalData(t *testing.T) {
	t.Parallel()
	rec := &sentrytest.Transport{}
	hub, err := NewSentry(SentryConfig{DSN: "https://public@sentry.example/1", Environment: "test", SampleRate: 1, Transport: rec})
	require.NoError(t, err)
	e := New(Config{Env: "test", MaxBodyBytes: 1024}, Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Sentry: hub})
	e.POST("/boom", func(echo.Context) error { return errors.New("db exploded") })
	e.GET("/panic", func(echo.Context) error { panic("nil map") })
	e.GET("/conflict", func(echo.Context) error { return NewError(http.StatusConflict, "conflict", "no") })

	secret := map[string]string{"Authorization": "Bearer eyJ.secret.token", "Cookie": "session=abc", "X-Forwarded-For": "203.0.113.9"}
	require.Equal(t, http.StatusInternalServerError, do(e, http.MethodPost, "/boom?t=unsubscribe-token", strings.NewReader(`{"email":"ada@example.com"}`), secret).Code)
	require.Equal(t, http.StatusInternalServerError, do(e, http.MethodGet, "/panic?q=x", nil, secret).Code)
	require.Equal(t, http.StatusConflict, do(e, http.MethodGet, "/conflict", nil, secret).Code)
	require.Equal(t, http.StatusNotFound, do(e, http.MethodGet, "/nowhere", nil, secret).Code)

	events := rec.Events()
	require.Len(t, events, 2, "the two unexpected errors, once each")
	require.Equal(t, "db exploded", events[0].Exception[0].Value)
	require.Contains(t, events[1].Exception[0].Value, "nil map")
	for _, ev := range events {
		dump := fmt.Sprintf("%+v %+v", *ev.Request, ev.User)
		for _, leak := range []string{"secret.token", "session=abc", "unsubscribe-token", "q=x", "ada@example.com", "203.0.113.9"} {
			require.NotContains(t, dump, leak)
		}
		require.Empty(t, ev.Request.Headers)
		require.Empty(t, ev.Request.QueryString)
		require.Contains(t, ev.Request.URL, "/")
		require.NotContains(t, ev.Request.URL, "?")
		require.Equal(t, "test", ev.Environment)
	}
}

func TestSentryOffWithoutDSN(t *testing.T) {
	t.Parallel()
	hub, err := NewSentry(SentryConfig{})
	require.NoError(t, err)
	require.Nil(t, hub)
	_, err = NewSentry(SentryConfig{DSN: "not a dsn"})
	require.ErrorContains(t, err, "SENTRY_DSN")
}
