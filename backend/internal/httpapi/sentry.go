package httpapi

import (
	"fmt"
	"net/url"

	"github.com/getsentry/sentry-go"
	sentryecho "github.com/getsentry/sentry-go/echo"
	"github.com/labstack/echo/v4"
)

// SentryConfig turns error reporting on: SENTRY_DSN, SENTRY_ENVIRONMENT, SENTRY_SAMPLE_RATE.
type SentryConfig struct {
	DSN         string
	Environment string
	// SampleRate is the share of errors sent, 0..1.
	SampleRate float64
	Release    string
	// Transport replaces the HTTP transport (tests record events instead).
	Transport sentry.Transport
}

// NewSentry builds the hub errors are reported to; nil, nil when DSN is empty (reporting off). The hub is
// ours, not the SDK's global one, so two App instances in one process (tests) never share it.
func NewSentry(cfg SentryConfig) (*sentry.Hub, error) {
	if cfg.DSN == "" {
		return nil, nil
	}
	client, err := sentry.NewClient(sentry.ClientOptions{
		Dsn: cfg.DSN, Environment: cfg.Environment, Release: cfg.Release, SampleRate: cfg.SampleRate,
		Transport: cfg.Transport, SendDefaultPII: false, BeforeSend: scrubEvent,
		// Only errors: no tracing, no breadcrumbs of requests.
		EnableTracing: false, MaxBreadcrumbs: -1,
	})
	if err != nil {
		return nil, fmt.Errorf("config: SENTRY_DSN: %w", err)
	}
	return sentry.NewHub(client, sentry.NewScope()), nil
}

// scrubEvent sends no personal data: no request headers (Authorization, cookies), no query string
// (unsubscribe tokens travel there), no body, no client address and no user. What stays is the method, the
// path, the error and its stack.
func scrubEvent(ev *sentry.Event, _ *sentry.EventHint) *sentry.Event {
	if r := ev.Request; r != nil {
		r.Headers, r.Cookies, r.QueryString, r.Data, r.Env = nil, "", "", "", nil
		if u, err := url.Parse(r.URL); err == nil {
			u.RawQuery, u.Fragment, u.User = "", "", nil
			r.URL = u.String()
		} else {
			r.URL = ""
		}
	}
	ev.User = sentry.User{}
	ev.ServerName = ""
	ev.Breadcrumbs = nil
	return ev
}

// sentryMiddleware gives each request its own hub (a clone of ours, so scopes never mix between requests)
// and Sentry's Echo integration on top of it. It sits outside Recover: a panic is recovered and answered
// 500 by Recover, whose error reaches the error handler, the one place that reports (unexpected errors
// only), so nothing is reported twice.
func sentryMiddleware(hub *sentry.Hub) []echo.MiddlewareFunc {
	return []echo.MiddlewareFunc{
		func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				sentryecho.SetHubOnContext(c, hub.Clone())
				return next(c)
			}
		},
		sentryecho.New(sentryecho.Options{Repanic: true}),
	}
}

// report sends an unexpected error to Sentry, when reporting is on.
func report(c echo.Context, err error) {
	if hub := sentryecho.GetHubFromContext(c); hub != nil {
		hub.CaptureException(err)
	}
}
