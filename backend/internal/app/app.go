// Package app is the one composition root: it turns a config into a database pool, services, the HTTP
// server and the job workers, and owns their start and graceful stop.
package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/getsentry/sentry-go"
	"github.com/labstack/echo/v4"
	"github.com/riverqueue/river"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/examples/imagegen"
	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/admin"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/billing/paddleapi"
	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
	"github.com/fabrica-saas/fabrica/backend/internal/catchup"
	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/console"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/disposable"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/feedback"
	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
	"github.com/fabrica-saas/fabrica/backend/internal/idempotency"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
	"github.com/fabrica-saas/fabrica/backend/internal/metrics"
	"github.com/fabrica-saas/fabrica/backend/internal/module"
	"github.com/fabrica-saas/fabrica/backend/internal/session"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
	"github.com/fabrica-saas/fabrica/backend/internal/userdata"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Options replace the clients of outside services we cannot reach from tests (or want to swap in an
// extension). The zero value builds everything from the config.
type Options struct {
	EmailSender email.Sender
	PaddleAPI   billing.PaddleAPI
	// ClerkUsers lists Clerk's users for `fabrica sync clerk-users` (default: the Backend API with
	// CLERK_SECRET_KEY). Paddle's event log comes from the real Paddle client (PADDLE_API_KEY/PADDLE_API_URL).
	ClerkUsers catchup.ClerkUsers
	// SignupHooks run after the built-in ones (signup grant, welcome email), once per user, inside
	// user.created's transaction: the extension point for what a deployment does when a user appears
	// (docs/extending.md).
	SignupHooks []account.SignupHook
	// SentryTransport replaces Sentry's HTTP transport when SENTRY_DSN is set.
	SentryTransport sentry.Transport
	// UsageHooks run once per usage notification (80 %, 100 % of a limit, a low balance), in the
	// transaction that delivers it (docs/usage.md, *Thresholds*).
	UsageHooks []usage.Hook
	// Clock replaces the clock every decision reads (default: the machine's, or in development the
	// movable development clock): tests fix the time with it.
	Clock clock.Clock
}

// App is a fully wired service.
type App struct {
	opts Options
	cfg  config.Config
	log  *slog.Logger
	db   *gorm.DB
	// clock is the one time source of every decision (clock package); devClock is the same clock when it
	// is development's movable one, else nil.
	clock     clock.Clock
	devClock  *clock.Dev
	migrator  *db.Migrator
	echo      *echo.Echo
	pipeline  *webhook.Pipeline
	billing   *billing.Service
	accounts  *account.Service
	ledger    *credits.Service
	metrics   *metrics.Metrics
	paddle    billing.PaddleAPI
	queue     *jobs.Queue
	catchup   *catchup.Service
	blocklist *disposable.Blocklist
	sentry    *sentry.Hub
	// broadcasts composes, dispatches and sends broadcasts (its jobs run on the workers).
	broadcasts *broadcast.Service
	workers    *river.Workers
	// probe is the health checks' own one-connection pool and probeSchema a migrator on it, so the
	// public health endpoints never hold a connection of the API's pool (db.OpenProbe).
	probe       *sql.DB
	probeSchema *db.Migrator
	// usage meters the tiers' features; idempotency backs the Idempotency-Key middleware.
	usage       *usage.Service
	idempotency *idempotency.Store
	// modules are the app's own packages (appModules), built once in wire.
	modules []module.Module
	// registry is every owner's tables of user data (userData): the export's sections, the erasure's work.
	registry *userdata.Registry
}

// LoadConfig reads the configuration from getenv (and .env in development).
func LoadConfig(getenv func(string) string) (config.Config, error) {
	return config.Load(getenv, ".env")
}

// NewLogger builds the process logger from the config: JSON in production, text in development.
func NewLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// New wires every component. It connects to the database but starts nothing; Serve and RunWorkers do.
func New(ctx context.Context, cfg config.Config, log *slog.Logger, opts Options) (*App, error) {
	gdb, err := db.Open(ctx, dbConfig(cfg), log)
	if err != nil {
		return nil, err
	}
	a := &App{opts: opts, cfg: cfg, log: log, db: gdb}
	if err := a.wire(); err != nil {
		_ = a.Close()
		return nil, err
	}
	return a, nil
}

func (a *App) wire() error {
	cfg := a.cfg
	sqlDB, err := a.db.DB()
	if err != nil {
		return err
	}
	if a.migrator, err = db.NewMigrator(sqlDB, a.log); err != nil {
		return err
	}
	a.clock = a.newClock(sqlDB)
	if a.probe, err = db.OpenProbe(dbConfig(cfg)); err != nil {
		return err
	}
	if a.probeSchema, err = db.NewMigrator(a.probe, a.log); err != nil {
		return err
	}
	queue, err := jobs.NewQueue(sqlDB, !cfg.DBSimpleProtocol)
	if err != nil {
		return err
	}
	a.queue = queue
	sender := a.opts.EmailSender
	if sender == nil {
		if sender, err = email.New(email.Config{
			Driver: cfg.EmailDriver, From: cfg.EmailFrom, SMTPURL: cfg.SMTPURL, ResendAPIKey: cfg.ResendAPIKey,
		}, a.log); err != nil {
			return err
		}
	}
	tiers, err := billing.LoadTiers(cfg.TiersFile)
	if err != nil {
		return fmt.Errorf("config: TIERS_FILE: %w", err)
	}
	for _, w := range tiers.Warnings() {
		a.log.Warn("tiers file", "warning", w)
	}
	if a.paddle, err = a.paddleAPI(); err != nil {
		return err
	}

	a.ledger = credits.New(a.db, credits.Config{DefaultExpiresIn: cfg.CreditsOrphanAfter, Now: a.clock.Now})
	a.metrics = metrics.New(sqlDB, a.ledger, a.log)
	sessions, err := a.sessions()
	if err != nil {
		return err
	}
	// One tombstone keeper for both creators of users, so they hash with the same key by construction.
	erasures := account.NewErasures(cfg.ErasureTombstoneKey)
	a.billing = billing.New(billing.Deps{DB: a.db, Tiers: tiers, Ledger: a.ledger, Jobs: queue,
		Signer: billing.NewCheckoutSigner(cfg.CheckoutSigningSecret), API: a.paddle, Erasures: erasures, Log: a.log,
		Now: a.clock.Now},
		billing.Config{AppName: cfg.AppName, AlertEmails: cfg.AdminEmails, ManageURL: cfg.PublicBaseURL})
	if a.blocklist, err = disposable.New(a.db, disposable.Config{URL: cfg.DisposableDomainsURL}, a.log); err != nil {
		return err
	}
	a.usage = usage.New(usage.Deps{DB: a.db, Tiers: tiers, Ledger: a.ledger, Jobs: queue, Hooks: a.opts.UsageHooks, Log: a.log},
		usage.Config{DedupWindow: cfg.UsageDedupWindow, Retention: cfg.UsageEventRetention, AppName: cfg.AppName,
			ManageURL: cfg.PublicBaseURL, Now: a.clock.Now})
	a.idempotency = idempotency.New(a.db, a.clock.Now)
	// The app's own packages, built once their collaborators exist; their parts are wired below beside
	// the built-in ones (routes, errors, user data) and in App.tasks.
	a.modules = a.appModules()
	if a.registry, err = a.userData(); err != nil {
		return err
	}
	// The sign-up hooks, in order: what the product does when a user appears, then the deployment's own.
	hooks := append([]account.SignupHook{
		account.SignupGrant(a.ledger, tiers.Free().SignupCredits, a.blocklist),
		account.WelcomeEmail(queue, cfg.AppName, cfg.PublicBaseURL),
	}, a.opts.SignupHooks...)
	a.accounts = account.New(account.Deps{DB: a.db, Ledger: a.ledger, Jobs: queue, Billing: a.billing,
		Erasures: erasures, SignupHooks: hooks, UserData: a.registry, Log: a.log, Now: a.clock.Now},
		account.Config{
			AppName: cfg.AppName, DashboardURL: cfg.PublicBaseURL,
			DeletionGrace: cfg.AccountDeletionGrace, UnsubscribeSecret: cfg.EmailUnsubscribeSecret,
			PublicBaseURL: cfg.PublicBaseURL,
		})
	if a.pipeline, err = newPipeline(cfg, webhook.Deps{DB: a.db, Log: a.log, Observer: a.metrics, Now: a.clock.Now}, a.accounts, a.billing); err != nil {
		return err
	}
	a.catchup = a.newCatchup()
	a.broadcasts = broadcast.New(broadcast.Deps{DB: a.db, Jobs: queue, Sender: sender, Links: a.accounts, Tiers: tiers, Log: a.log},
		broadcast.Config{AppName: cfg.AppName, CompanyLegalName: cfg.CompanyLegalName, RatePerSecond: cfg.EmailRatePerSecond})
	a.workers = river.NewWorkers()
	river.AddWorker(a.workers, jobs.NewEmailWorker(sender, email.Renderer{Footer: email.Footer{CompanyLegalName: cfg.CompanyLegalName}}))
	river.AddWorker(a.workers, jobs.NewBroadcastDispatchWorker(a.broadcasts))
	river.AddWorker(a.workers, jobs.NewBroadcastSendWorker(a.broadcasts))
	if err := checkTaskNames(a.tasks()); err != nil {
		return err
	}
	river.AddWorker(a.workers, jobs.NewTaskWorker(a.tasks(), a.log, a.clock.Now))
	river.AddWorker(a.workers, jobs.NewCancelSubscriptionWorker(a.paddle, func(err error) bool {
		// Not found or already canceled: there is nothing left to stop.
		return errors.Is(err, paddleapi.ErrNotFound) || errors.Is(err, paddleapi.ErrConflict)
	}))
	if a.sentry, err = httpapi.NewSentry(httpapi.SentryConfig{DSN: cfg.SentryDSN, Environment: cfg.SentryEnvironment,
		SampleRate: cfg.SentrySampleRate, Transport: a.opts.SentryTransport}); err != nil {
		return err
	}
	// The console names the Clerk Frontend API of the publishable key in its CSP: a malformed key stops here.
	var tierNames []string
	for _, t := range tiers.List() {
		tierNames = append(tierNames, t.Name)
	}
	pages, err := console.New(console.Config{Development: cfg.Env == config.EnvDevelopment,
		ClerkPublishableKey: cfg.ClerkPublishableKey, Providers: a.pipeline.Providers(), Statuses: webhook.Statuses,
		Templates: email.BroadcastTemplates(), BypassTemplates: email.BypassTemplates(), Tiers: tierNames})
	if err != nil {
		return fmt.Errorf("config: CLERK_PUBLISHABLE_KEY: %w", err)
	}
	routes, errs, err := a.moduleEdges()
	if err != nil {
		return err
	}
	a.echo = httpapi.New(httpapi.Config{
		Env:                cfg.Env,
		AdminEmails:        cfg.AdminEmails,
		AdminClerkUserIDs:  cfg.AdminClerkUserIDs,
		RateLimitPerMinute: cfg.RateLimitPerMinute,
		TierRateLimit: func(name string) int {
			t, _ := tiers.ByName(name) // an unknown tier (a removed one) gets the default
			return t.RateLimitPerMinute
		},
		MetricsToken:        cfg.MetricsToken,
		WorkerAPIKeys:       cfg.WorkerAPIKeys,
		CORSOrigins:         cfg.CORSOrigins,
		MaxBodyBytes:        cfg.HTTPMaxBodyBytes,
		WebhookMaxBodyBytes: cfg.WebhookMaxBodyBytes,
		HSTS:                cfg.Env == config.EnvProduction,
		DocsViewer:          cfg.Env == config.EnvDevelopment,
		TrustedProxies:      cfg.TrustedProxies,
	}, httpapi.Deps{
		Log:         a.log,
		Now:         a.clock.Now,
		Checks:      a.readinessChecks(),
		Webhooks:    a.pipeline,
		Sessions:    sessions,
		Accounts:    a.accounts,
		Billing:     a.billing,
		Credits:     a.ledger,
		Admin:       admin.New(a.db, a.pipeline, a.billing, a.ledger),
		Broadcasts:  a.broadcasts,
		Feedback:    feedback.New(a.db),
		Console:     pages,
		Metrics:     a.metrics.Handler(),
		Sentry:      a.sentry,
		Dev:         a.devTools(),
		Usage:       a.usage,
		Idempotency: a.idempotency,
		Routes:      routes,
		Errors:      errs,
	})
	return nil
}

// appModules are the app's own packages (docs/architecture.md, "A package of your own"): one line each.
// A package here adds its routes, error codes, periodic tasks and tables of user data through its Module.
func (a *App) appModules() []module.Module {
	return []module.Module{
		imagegen.Module(imagegen.Deps{DB: a.db, Usage: a.usage}), // POST /api/v1/generations, the worked example
	}
}

// sessions builds the session verifier: Clerk's keys, or in development with no Clerk key configured the
// local dev key of `fabrica dev token` (created on first use). Only development ever reads that key, so a
// dev token anywhere else is a forged token: 401.
func (a *App) sessions() (*session.Verifier, error) {
	cfg := a.cfg
	sc := session.Config{SecretKey: cfg.ClerkSecretKey, JWTKey: cfg.ClerkJWTKey,
		AuthorizedParties: cfg.ClerkAuthorizedParties, Log: a.log, Observer: a.metrics, Now: a.clock.Now}
	if cfg.Env == config.EnvDevelopment && cfg.ClerkSecretKey == "" && cfg.ClerkJWTKey == "" {
		key, err := devauth.LoadOrCreateKey(cfg.DevSessionKeyFile)
		if err != nil {
			return nil, fmt.Errorf("config: DEV_SESSION_KEY_FILE: %w", err)
		}
		sc.JWTKey = devauth.PublicKeyPEM(key)
		a.log.Info("development sessions: tokens from `fabrica dev token` are accepted", "key_file", cfg.DevSessionKeyFile)
	}
	v, err := session.New(sc)
	if err != nil {
		return nil, fmt.Errorf("config: CLERK_JWT_KEY / CLERK_SECRET_KEY: %w", err)
	}
	return v, nil
}

// paddleAPI is billing's Paddle API client: the fake from Options in tests, the real one when
// PADDLE_API_KEY is set, the development stand-in without a key in development (a deterministic customer
// per email, management calls logged), none otherwise (management endpoints then answer 503; webhooks
// still work).
func (a *App) paddleAPI() (billing.PaddleAPI, error) {
	switch {
	case a.opts.PaddleAPI != nil:
		return a.opts.PaddleAPI, nil
	case a.cfg.PaddleAPIKey == "" && a.cfg.Env == config.EnvDevelopment:
		return paddleapi.NewDev(a.log), nil
	case a.cfg.PaddleAPIKey == "":
		return nil, nil
	}
	return paddleapi.New(paddleapi.Config{BaseURL: a.cfg.PaddleAPIURL, APIKey: a.cfg.PaddleAPIKey})
}

// newPipeline builds the webhook pipeline: per provider a verifier, an envelope reader and the policy
// package's handler table.
func newPipeline(cfg config.Config, deps webhook.Deps, accounts *account.Service, bill *billing.Service) (*webhook.Pipeline, error) {
	paddleSig, err := webhook.NewPaddleSignature(cfg.PaddleWebhookSecrets, cfg.WebhookTolerance)
	if err != nil {
		return nil, fmt.Errorf("config: PADDLE_WEBHOOK_SECRET: %w", err)
	}
	clerkSig, err := webhook.NewSvixSignature(cfg.ClerkWebhookSecrets, cfg.WebhookTolerance)
	if err != nil {
		return nil, fmt.Errorf("config: CLERK_WEBHOOK_SECRET: %w", err)
	}
	return webhook.New(deps,
		&webhook.Provider{
			Name: webhook.ProviderPaddle, Verifier: paddleSig, SignatureHeader: webhook.PaddleSignatureHeader,
			ReadEnvelope: webhook.PaddleEnvelope, Handlers: bill.PaddleHandlers(),
		},
		&webhook.Provider{
			Name: webhook.ProviderClerk, Verifier: clerkSig, SignatureHeader: webhook.SvixSignatureHeader,
			ReadEnvelope: webhook.SvixEnvelope, Handlers: accounts.ClerkHandlers(),
		},
	), nil
}

func dbConfig(cfg config.Config) db.Config {
	return db.Config{URL: cfg.DatabaseURL, MaxConns: cfg.DBMaxConns, SimpleProtocol: cfg.DBSimpleProtocol}
}

// Echo exposes the router, for tests that need an extra route (a deliberately slow one, say).
func (a *App) Echo() *echo.Echo { return a.echo }

// Close sends what Sentry still holds (briefly) and releases the database pools.
func (a *App) Close() error {
	if a.sentry != nil {
		a.sentry.Flush(2 * time.Second)
	}
	if a.probe != nil {
		_ = a.probe.Close()
	}
	if a.devClock != nil {
		a.devClock.Close()
	}
	return db.Close(a.db)
}

// newClock is the clock every decision reads: Options.Clock in tests, the movable development clock when
// APP_ENV=development (its offset is stored in the database, docs/simulate.md), the machine's clock
// everywhere else. Staging and production never read the stored offset, whatever the table holds.
func (a *App) newClock(sqlDB *sql.DB) clock.Clock {
	switch {
	case a.opts.Clock != nil:
		return a.opts.Clock
	case a.cfg.Env == config.EnvDevelopment:
		a.devClock = clock.NewDev(context.Background(), sqlDB, a.log)
		return a.devClock
	}
	return clock.System{}
}

// Clock is the App's clock.
func (a *App) Clock() clock.Clock { return a.clock }
