// Package httpapi is the HTTP edge: the one route table, middleware, the one error map and thin handlers.
// It is the only package besides app that imports Echo.
package httpapi

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/getsentry/sentry-go"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/admin"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/console"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/feedback"
	"github.com/fabrica-saas/fabrica/backend/internal/idempotency"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
)

// Config is what the HTTP layer needs from the service configuration.
type Config struct {
	Env string
	// AdminEmails (verified addresses) and AdminClerkUserIDs may use /api/v1/admin.
	AdminEmails       []string
	AdminClerkUserIDs []string
	// RateLimitPerMinute is each user's API budget for tiers without their own; 0: no limit for them.
	RateLimitPerMinute int
	// TierRateLimit is a tier's own per-minute budget (the tiers file's rate_limit_per_minute), 0 for none.
	TierRateLimit func(tier string) int
	// MetricsToken, when set, is required as a bearer token on /metrics.
	MetricsToken string
	CORSOrigins  []string
	MaxBodyBytes int64
	// WebhookMaxBodyBytes bounds a webhook's raw body (413 beyond).
	WebhookMaxBodyBytes int64
	// HSTS is sent only in production: on localhost it would pin browsers to https for a year.
	HSTS bool
	// TrustedProxies are the load balancers whose X-Forwarded-For is believed (TRUSTED_PROXIES).
	TrustedProxies []*net.IPNet
	// WorkerAPIKeys are the service keys that may report job outcomes and spend for a user; none: nobody can.
	WorkerAPIKeys []string
	// DocsViewer serves /docs, the rendered OpenAPI document: development only.
	DocsViewer bool
}

// Deps are the services the handlers call, one field per service. Each later capability adds its field
// here and its routes below, so this file stays the single place to read what the API exposes.
type Deps struct {
	Log    *slog.Logger
	Checks []Check
	// Now is the clock (app's; the system clock when nil): rate windows, what a balance shows, the health
	// checks' cache.
	Now      func() time.Time
	Webhooks WebhookIngester
	Sessions SessionVerifier
	Accounts *account.Service
	Billing  *billing.Service
	Credits  *credits.Service
	Admin    *admin.Service
	Feedback *feedback.Service
	// Broadcasts composes and sends the admin's broadcasts.
	Broadcasts *broadcast.Service
	// Console is the operator console's pages, served at /console/ (nil: no route).
	Console *console.Pages
	// Metrics serves /metrics (nil: no route).
	Metrics http.Handler
	// Sentry receives unexpected errors and panics (nil: reporting off; see NewSentry).
	Sentry *sentry.Hub
	// Usage meters features (entitlements, checks, usage events, gauges); Idempotency backs the
	// Idempotency-Key middleware.
	Usage       *usage.Service
	Idempotency *idempotency.Store
	// Routes adds the app's own endpoints and Errors maps their sentinels (app fills both from its
	// modules; docs/architecture.md, "A package of your own"). Errors must pass CheckErrors.
	Routes []func(Routes)
	Errors []ErrorCode
	// Dev is development's clock and mail view (nil: the /dev routes answer 404; only development has them).
	Dev DevTools
}

// Routes is what an app's own endpoint package gets to add its routes: the API's groups with their
// authentication and the Idempotency-Key middleware. UserID and Bind read a request as the built-in
// handlers do.
type Routes struct {
	// Session is /api/v1 behind a Clerk session and the per-user rate limit.
	Session *echo.Group
	// Idempotent is the Idempotency-Key middleware (idempotent.go); list it after the route's handler.
	Idempotent echo.MiddlewareFunc
}

// UserID is the session's user of a request behind Routes.Session.
func UserID(c echo.Context) uuid.UUID { return currentUser(c).ID }

// Bind decodes a JSON body into dst (400 bad_request on malformed input), as the built-in handlers do.
func Bind(c echo.Context, dst any) error { return bind(c, dst) }

// gzipMinLength is the smallest API response worth compressing (bytes).
const gzipMinLength = 1024

// New builds the Echo instance with every route the service serves.
func New(cfg Config, deps Deps) *echo.Echo {
	deps.Now = clock.Or(deps.Now)
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(deps.Log, slices.Concat(errorMap, deps.Errors))
	e.IPExtractor = ipExtractor(cfg.TrustedProxies)

	// Pre runs before routing, so even a 404 or 405 carries the security headers and a request id.
	e.Pre(securityHeaders(cfg.HSTS))
	e.Pre(middleware.RequestIDWithConfig(middleware.RequestIDConfig{TargetHeader: echo.HeaderXRequestID}))
	e.Use(requestLogger(deps.Log))
	if deps.Sentry != nil {
		e.Use(sentryMiddleware(deps.Sentry)...)
	}
	e.Use(middleware.Recover())
	if len(cfg.CORSOrigins) > 0 {
		// Deny by default: with no CORS_ORIGINS no Access-Control-Allow-Origin is ever sent (Echo's CORS
		// middleware would otherwise default to "*").
		e.Use(middleware.CORSWithConfig(middleware.CORSConfig{
			AllowOrigins:  cfg.CORSOrigins,
			AllowHeaders:  []string{echo.HeaderAuthorization, echo.HeaderContentType, HeaderIdempotencyKey},
			ExposeHeaders: []string{HeaderIdempotentReplayed},
			MaxAge:        600,
		}))
	}

	h := newHealthHandler(cfg.Env, deps.Checks, deps.Now)
	e.GET("/health", h.live)
	e.GET("/health/ready", h.ready)
	e.GET("/status", h.status)

	// The API's description, public everywhere; its viewer only in development (apidocs.go).
	e.GET("/openapi.yaml", serveOpenAPI)
	if cfg.DocsViewer {
		e.GET("/docs", serveViewer)
		e.GET("/docs/:asset", serveViewerAsset)
	}

	// Webhooks: no auth middleware (the signature is their authentication) and no rate limit (providers
	// retry whatever we refuse).
	// One route for every provider: the pipeline answers 404 for a name it has no provider for, so adding a
	// provider never touches this table.
	wh := &webhookHandler{pipeline: deps.Webhooks, maxBody: cfg.WebhookMaxBodyBytes}
	e.POST("/webhooks/:provider", wh.receive)

	// Everything under /api/v1 is bounded by HTTP_MAX_BODY_BYTES (413 beyond). Webhook routes read their
	// raw body with their own bound, since they must verify the exact bytes before parsing.
	// API responses are gzipped for clients that ask (lists and exports shrink several times); below 1 KiB
	// it is not worth it. Webhook answers are tiny, and /metrics compresses on its own.
	api := e.Group("/api/v1", middleware.BodyLimit(fmt.Sprintf("%dB", cfg.MaxBodyBytes)),
		middleware.GzipWithConfig(middleware.GzipConfig{MinLength: gzipMinLength}))
	// One instance of each, so a user's budget is the same whichever route spends it.
	session, limit := requireUser(deps.Sessions, deps.Accounts), rateLimit(cfg.RateLimitPerMinute, cfg.TierRateLimit, deps.Now)
	authed := api.Group("", session, limit)
	workers := newWorkerKeys(cfg.WorkerAPIKeys)

	b := &billingHandler{billing: deps.Billing, ledger: deps.Credits, now: deps.Now}
	authed.POST("/billing/checkout", b.checkout)
	authed.GET("/billing/subscription", b.subscription)
	authed.POST("/billing/subscription/cancel", b.cancel)
	authed.POST("/billing/subscription/change", b.change)
	authed.POST("/billing/subscription/resume", b.resume)
	authed.POST("/billing/portal", b.portal)
	authed.GET("/billing/credits", b.credits)

	a := &accountHandler{accounts: deps.Accounts, billing: deps.Billing, ledger: deps.Credits}
	authed.GET("/account/me", a.me)
	authed.PATCH("/account/me", a.updateMe)
	authed.DELETE("/account/me", a.deleteMe)
	authed.GET("/account/me/export", a.export)
	authed.POST("/account/me/consent", a.consent)
	authed.POST("/account/me/signup-metadata", a.signupMetadata)
	// Public: the token in the query is the authentication. GET only shows a confirmation page (link
	// scanners follow GETs); POST acts (RFC 8058 one-click, or the page's button). See unsubscribe.go.
	api.GET("/email/unsubscribe", a.confirmUnsubscribe)
	api.POST("/email/unsubscribe", a.unsubscribe)

	// A user spends with their session, or a worker for them; only a worker reports how the job ended.
	cr := &creditsHandler{credits: deps.Credits, users: deps.Accounts}
	api.POST("/credits/spend", cr.spend, workerOrSession(workers, session, limit))
	api.POST("/credits/jobs/:job_id/complete", cr.complete, requireWorker(workers))
	api.POST("/credits/jobs/:job_id/fail", cr.fail, requireWorker(workers))

	us := &usageHandler{usage: deps.Usage}
	authed.GET("/entitlements", us.entitlements)
	api.POST("/entitlements/check", us.check, workerOrSession(workers, session, limit))
	api.POST("/usage", us.record, workerOrSession(workers, session, limit))
	api.PUT("/usage/gauges/:feature", us.setGauge, workerOrSession(workers, session, limit))
	for _, add := range deps.Routes {
		add(Routes{Session: authed, Idempotent: idempotent(deps.Idempotency)})
	}

	fb := &feedbackHandler{feedback: deps.Feedback}
	authed.POST("/feedback", fb.submit, middleware.BodyLimit(feedbackMaxBody),
		limitUsers(newLimiter(time.Hour, deps.Now), func(models.User) int { return feedbackPerHour }))

	ad := &adminHandler{admin: deps.Admin, ledger: deps.Credits, ids: cfg.AdminClerkUserIDs}
	for _, a := range cfg.AdminEmails {
		if a = email.Fold(a); a != "" {
			ad.emails = append(ad.emails, a)
		}
	}
	admins := authed.Group("/admin", ad.requireAdmin)
	admins.GET("/me", ad.me)
	admins.GET("/users", ad.users)
	admins.GET("/users/:id", ad.user)
	admins.GET("/users/:id/credits", ad.userCredits)
	admins.POST("/users/:id/credits", ad.adjustCredits)
	admins.GET("/users/:id/credit-buckets", ad.userBuckets)
	admins.GET("/users/:id/deliveries", ad.userDeliveries)
	admins.GET("/audit", ad.audit)
	admins.GET("/webhook-events", ad.webhookEvents)
	admins.GET("/webhook-events/:id", ad.webhookEvent)
	admins.POST("/webhook-events/:id/replay", ad.replay)
	admins.GET("/stats", ad.stats)
	admins.GET("/stats/deliveries", ad.deliveriesPerHour)
	admins.GET("/feedback", ad.feedback)
	admins.GET("/metrics/overview", ad.overview)
	admins.GET("/users/:id/usage", us.userUsage)
	admins.GET("/usage/nearest-limits", us.nearestLimits)

	// Development only (docs/simulate.md): the clock anyone may read (the dev tools sign with its time
	// before they have a session); moving it and reading the mail queue are an operator's.
	if cfg.Env == "development" {
		dv := &devHandler{dev: deps.Dev}
		api.GET("/dev/clock", dv.clock, dv.present)
		api.POST("/dev/clock", dv.moveClock, dv.present, session, limit, ad.requireAdmin)
		api.GET("/dev/emails", dv.emails, dv.present, session, limit, ad.requireAdmin)
	}

	bc := &broadcastHandler{broadcasts: deps.Broadcasts}
	admins.POST("/broadcasts", bc.create)
	admins.POST("/broadcasts/preview", bc.previewDraft)
	admins.GET("/broadcasts", bc.list)
	admins.GET("/broadcasts/:id", bc.get)
	admins.POST("/broadcasts/:id/send", bc.send)
	admins.GET("/emails/:template/preview", bc.preview)

	// The operator console (docs/console.md): static pages, outside /api/v1 (no session, no rate limit, no
	// gzip of files this small), which call the admin routes above and show nothing until they answer.
	if deps.Console != nil {
		con := &consoleHandler{pages: deps.Console}
		e.GET("/console", con.redirect)
		e.GET("/console/*", con.serve)
	}

	if deps.Metrics != nil {
		e.GET("/metrics", echo.WrapHandler(deps.Metrics), bearerToken(cfg.MetricsToken))
	}
	return e
}
