// Package config loads the service configuration from the environment (and, in development, a .env file)
// with Viper, validates it, and refuses to boot a deployed environment on an unsafe value.
package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"
)

// Environments the service knows. Staging and production are "deployed": the boot guard applies there, and
// to a process started with APP_ENV=test; test without the guard is the in-process tests' (LoadForTest).
const (
	EnvDevelopment = "development"
	EnvTest        = "test"
	EnvStaging     = "staging"
	EnvProduction  = "production"
)

// Paddle API base URLs; development and test default to the sandbox so nothing touches live money.
const (
	PaddleSandboxURL    = "https://sandbox-api.paddle.com"
	PaddleProductionURL = "https://api.paddle.com"
)

// Config is the whole service configuration, already parsed and defaulted.
type Config struct {
	Env string
	// AppName is the product name used in emails.
	AppName string
	// Host is the address serve listens on (HOST); empty picks one by environment, see ListenAddr.
	Host             string
	Port             int
	DatabaseURL      string
	DBMaxConns       int
	DBSimpleProtocol bool
	LogLevel         string
	LogFormat        string
	CORSOrigins      []string

	HTTPReadTimeout  time.Duration
	HTTPWriteTimeout time.Duration
	HTTPIdleTimeout  time.Duration
	HTTPMaxBodyBytes int64
	ShutdownTimeout  time.Duration

	WebhookMaxBodyBytes int64
	// WebhookTolerance is how far a signature timestamp may be from now, in either direction.
	WebhookTolerance time.Duration
	// ServeWorkers runs the River job workers inside `serve`; false when `fabrica worker` runs them apart.
	ServeWorkers bool

	// Webhook secrets are lists so a secret can rotate with no failed deliveries: during the overlap both
	// the old and the new secret verify.
	PaddleWebhookSecrets []string
	ClerkWebhookSecrets  []string
	ClerkSecretKey       string
	ClerkJWTKey          string
	// DevSessionKeyFile is the local key of `fabrica dev token`; read only in development without a Clerk key.
	DevSessionKeyFile string
	// ClerkAuthorizedParties are the origins of our frontends; a session token's azp must be one of them.
	// Empty accepts any azp (development only: the boot guard requires it when sessions are enabled).
	ClerkAuthorizedParties []string
	// ClerkPublishableKey (pk_test_..., pk_live_...) lets the operator console sign in with Clerk's frontend;
	// it is public by design (it names the Clerk frontend API). Empty: the console offers no Clerk sign-in.
	ClerkPublishableKey string
	PaddleAPIKey        string
	PaddleAPIURL        string
	// PaddleEventsSyncInterval is how often Paddle's event log is read for events the webhooks missed.
	PaddleEventsSyncInterval time.Duration

	CheckoutSigningSecret string
	// TiersFile replaces the embedded pricing tiers (backend/internal/billing/tiers.yaml).
	TiersFile              string
	EmailDriver            string
	EmailFrom              string
	SMTPURL                string
	ResendAPIKey           string
	EmailUnsubscribeSecret string
	// EmailRatePerSecond throttles broadcast sends per process (0: unthrottled).
	EmailRatePerSecond float64
	AdminEmails        []string
	// AdminClerkUserIDs pins operators by Clerk user id, whatever their email.
	AdminClerkUserIDs []string
	PublicBaseURL     string

	// AccountDeletionGrace is how long a soft-deleted account can be restored before the daily job erases it.
	AccountDeletionGrace time.Duration
	// ErasureTombstoneKey keys the hash of an erased user's Clerk id (erased_users). Never rotate it: the
	// tombstones written under the old key would no longer match, and late events could recreate the users.
	ErasureTombstoneKey string
	// CreditsOrphanAfter is the default expires_in of a spend: when the reconciler refunds a deduct with
	// neither completion nor failure, unless the spend named its own window (1s..24h).
	CreditsOrphanAfter time.Duration
	// WorkerAPIKeys are the service keys of the trusted side that reports job outcomes (complete, fail)
	// and may spend for a user. A list so a key can rotate; empty: nobody can report an outcome.
	WorkerAPIKeys []string
	// WebhookArchiveRetention bounds webhook_events; processed_webhook_events is kept forever.
	WebhookArchiveRetention time.Duration
	// AuditRetention is the age at which audit rows are purged, consent records excepted (see
	// account.AuditRetention).
	AuditRetention time.Duration
	// AuditConsentRetention is how long consent records, and the record of the erasure, outlive an erased
	// account.
	AuditConsentRetention time.Duration
	// UsageDedupWindow keeps usage idempotency keys, and refuses events older than it (docs/usage.md).
	UsageDedupWindow time.Duration
	// UsageEventRetention keeps usage events (monthly partitions); at least the window plus a month.
	UsageEventRetention time.Duration
	// RateLimitPerMinute is each user's API budget (429 with Retry-After beyond); 0 disables it.
	RateLimitPerMinute int
	// MetricsToken, when set, is required as a bearer token on /metrics (always set in staging/production).
	MetricsToken string
	// TrustedProxies are the load balancers whose X-Forwarded-For is believed; none means the socket
	// address is the client and forwarded headers are ignored.
	TrustedProxies []*net.IPNet
	// CompanyLegalName is the legal entity the email footer names; required in staging and production.
	CompanyLegalName string
	// DisposableDomainsURL, when set, is where the daily disposable-domains task reads the blocklist
	// (a JSON array or one domain a line); empty: the list embedded in the binary.
	DisposableDomainsURL string
	// SentryDSN turns error reporting on (empty: off); SentrySampleRate is the share of errors sent (0..1);
	// SentryEnvironment tags the events (default APP_ENV).
	SentryDSN         string
	SentrySampleRate  float64
	SentryEnvironment string

	// inProcessTest marks the test environment of LoadForTest, the only one without the boot guard.
	inProcessTest bool
}

// Deployed reports whether the environment is staging or production.
func (c Config) Deployed() bool { return c.Env == EnvStaging || c.Env == EnvProduction }

// guarded reports whether the boot guard applies: staging, production, and a process started with
// APP_ENV=test. Only the in-process tests' configuration (LoadForTest) is a test environment without it.
func (c Config) guarded() bool { return c.Deployed() || (c.Env == EnvTest && !c.inProcessTest) }

// Load reads the configuration of a process. getenv is injected (os.Getenv in main, a map in tests) so that
// tests never depend on the process environment. dotenv names a .env file, read only when getenv itself
// says APP_ENV=development (a missing file is not an error): a .env copied onto a server, which says
// development too, can never turn a deploy into development. Values from the environment always win over
// the file. APP_ENV=test gets the boot guard here, like staging: the test environment's development
// secrets exist only in LoadForTest.
func Load(getenv func(string) string, dotenv string) (Config, error) {
	return load(getenv, dotenv, false)
}

// LoadForTest is Load for the tests of this module, which build the service in their own process: there
// APP_ENV=test fills the development secrets and skips the boot guard, so a test needs no secrets of its
// own. It never reads a .env file, and it refuses to run outside a test binary (testing.Testing), so no
// command reaches that environment, whatever its environment says.
func LoadForTest(getenv func(string) string) (Config, error) {
	if !testing.Testing() {
		return Config{}, errors.New("config: LoadForTest is for go test only; a process loads with Load")
	}
	return load(getenv, "", true)
}

func load(getenv func(string) string, dotenv string, inProcessTest bool) (Config, error) {
	v := viper.New()
	for _, k := range Keys {
		v.SetDefault(k.Name, k.Default)
	}
	if strings.TrimSpace(getenv("APP_ENV")) == EnvDevelopment {
		if err := readDotenv(v, dotenv); err != nil {
			return Config{}, err
		}
	}
	// v.Set is Viper's highest-precedence layer: the injected environment overrides the .env file.
	for _, k := range Keys {
		if val := getenv(k.Name); val != "" {
			v.Set(k.Name, val)
		}
	}
	c, err := build(v)
	if err != nil {
		return Config{}, err
	}
	c.inProcessTest = inProcessTest && c.Env == EnvTest
	c.fillDevDefaults()
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// LoadForTool reads the configuration for a command that talks to a server instead of running one
// (`fabrica dev token`, `trigger`, `seed`): it signs deliveries with the same secrets the server would use,
// so it loads the same way (the same APP_ENV rules, the same .env), except that no database is needed.
// Those commands are development tools and refuse any other environment before they load (cmd/fabrica
// devToolConfig).
func LoadForTool(getenv func(string) string, dotenv string) (Config, error) {
	return Load(func(k string) string {
		if v := getenv(k); v != "" || k != "DATABASE_URL" {
			return v
		}
		return "postgres://unused-by-this-command"
	}, dotenv)
}

func readDotenv(v *viper.Viper, path string) error {
	if path == "" {
		return nil
	}
	v.SetConfigFile(path)
	v.SetConfigType("env")
	err := v.ReadInConfig()
	var notFound viper.ConfigFileNotFoundError
	if err == nil || errors.As(err, &notFound) || isNotExist(err) {
		return nil
	}
	return fmt.Errorf("config: read %s: %w", path, err)
}

func build(v *viper.Viper) (Config, error) {
	p := parser{v: v}
	c := Config{
		Env:                      p.str("APP_ENV"),
		AppName:                  p.str("APP_NAME"),
		Host:                     p.str("HOST"),
		Port:                     p.integer("PORT"),
		DatabaseURL:              p.str("DATABASE_URL"),
		DBMaxConns:               p.integer("DB_MAX_CONNS"),
		DBSimpleProtocol:         p.boolean("DB_SIMPLE_PROTOCOL"),
		LogLevel:                 strings.ToLower(p.str("LOG_LEVEL")),
		LogFormat:                strings.ToLower(p.str("LOG_FORMAT")),
		CORSOrigins:              p.list("CORS_ORIGINS"),
		HTTPReadTimeout:          p.duration("HTTP_READ_TIMEOUT"),
		HTTPWriteTimeout:         p.duration("HTTP_WRITE_TIMEOUT"),
		HTTPIdleTimeout:          p.duration("HTTP_IDLE_TIMEOUT"),
		HTTPMaxBodyBytes:         int64(p.integer("HTTP_MAX_BODY_BYTES")),
		ShutdownTimeout:          p.duration("SHUTDOWN_TIMEOUT"),
		WebhookMaxBodyBytes:      int64(p.integer("WEBHOOK_MAX_BODY_BYTES")),
		WebhookTolerance:         p.duration("WEBHOOK_TOLERANCE"),
		ServeWorkers:             p.boolean("SERVE_WORKERS"),
		PaddleWebhookSecrets:     p.list("PADDLE_WEBHOOK_SECRET"),
		ClerkWebhookSecrets:      p.list("CLERK_WEBHOOK_SECRET"),
		ClerkSecretKey:           p.str("CLERK_SECRET_KEY"),
		ClerkJWTKey:              p.str("CLERK_JWT_KEY"),
		DevSessionKeyFile:        p.str("DEV_SESSION_KEY_FILE"),
		ClerkAuthorizedParties:   p.list("CLERK_AUTHORIZED_PARTIES"),
		ClerkPublishableKey:      p.str("CLERK_PUBLISHABLE_KEY"),
		PaddleAPIKey:             p.str("PADDLE_API_KEY"),
		PaddleAPIURL:             p.str("PADDLE_API_URL"),
		PaddleEventsSyncInterval: p.duration("PADDLE_EVENTS_SYNC_INTERVAL"),
		CheckoutSigningSecret:    p.str("CHECKOUT_SIGNING_SECRET"),
		TiersFile:                p.str("TIERS_FILE"),
		EmailDriver:              strings.ToLower(p.str("EMAIL_DRIVER")),
		EmailFrom:                p.str("EMAIL_FROM"),
		SMTPURL:                  p.str("SMTP_URL"),
		ResendAPIKey:             p.str("RESEND_API_KEY"),
		EmailUnsubscribeSecret:   p.str("EMAIL_UNSUBSCRIBE_SECRET"),
		EmailRatePerSecond:       p.number("EMAIL_RATE_PER_SECOND"),
		AdminEmails:              p.list("ADMIN_EMAILS"), // folded by their consumer (email.Fold), ASCII-only
		AdminClerkUserIDs:        p.list("ADMIN_CLERK_USER_IDS"),
		PublicBaseURL:            strings.TrimRight(p.str("PUBLIC_BASE_URL"), "/"),

		AccountDeletionGrace:    p.duration("ACCOUNT_DELETION_GRACE"),
		ErasureTombstoneKey:     p.str("ERASURE_TOMBSTONE_KEY"),
		CreditsOrphanAfter:      p.duration("CREDITS_ORPHAN_AFTER"),
		WorkerAPIKeys:           p.list("WORKER_API_KEYS"),
		WebhookArchiveRetention: p.duration("WEBHOOK_ARCHIVE_RETENTION"),
		AuditRetention:          p.duration("AUDIT_RETENTION"),
		AuditConsentRetention:   p.duration("AUDIT_CONSENT_RETENTION"),
		UsageDedupWindow:        p.duration("USAGE_DEDUP_WINDOW"),
		UsageEventRetention:     p.duration("USAGE_EVENT_RETENTION"),
		RateLimitPerMinute:      p.integer("RATE_LIMIT_PER_MINUTE"),
		MetricsToken:            p.str("METRICS_TOKEN"),
		TrustedProxies:          p.cidrs("TRUSTED_PROXIES"),
		CompanyLegalName:        p.str("COMPANY_LEGAL_NAME"),
		DisposableDomainsURL:    p.str("DISPOSABLE_DOMAINS_URL"),
		SentryDSN:               p.str("SENTRY_DSN"),
		SentrySampleRate:        p.number("SENTRY_SAMPLE_RATE"),
		SentryEnvironment:       p.str("SENTRY_ENVIRONMENT"),
	}
	return c, p.err
}

// Dev-only values: safe defaults so `make run` needs no editing. Each is recognisably insecure and the boot
// guard refuses every one of them in staging and production.
var (
	devPaddleWebhookSecret = "pdl_ntfset_dev_only_insecure_paddle_webhook_secret"
	devClerkWebhookSecret  = "whsec_" + base64.StdEncoding.EncodeToString([]byte("dev-only-insecure-clerk-webhook-secret"))
	devCheckoutSecret      = "dev-only-insecure-checkout-signing-secret-0123456789"
	devUnsubscribeSecret   = "dev-only-insecure-email-unsubscribe-secret-0123456789"
	devErasureKey          = "dev-only-insecure-erasure-tombstone-key-0123456789"
	devWorkerAPIKey        = "dev-only-insecure-worker-api-key-0123456789"
)

// DevCompanyLegalName is COMPANY_LEGAL_NAME outside staging and production when it is unset.
const DevCompanyLegalName = "Fabrica Dev Ltd (development)"

// DevAdminEmail is ADMIN_EMAILS in development when it is empty: the address of `fabrica dev token --admin`.
const DevAdminEmail = "admin@fabrica.test"

// DevPaddleWebhookSecret and DevClerkWebhookSecret are the development defaults, exported so the
// `webhook send` dev command can sign deliveries that a local `make run` accepts.
var (
	DevPaddleWebhookSecret = devPaddleWebhookSecret
	DevClerkWebhookSecret  = devClerkWebhookSecret
)

func (c *Config) fillDevDefaults() {
	if c.LogFormat == "" {
		c.LogFormat = "json"
		if c.Env == EnvDevelopment {
			c.LogFormat = "text"
		}
	}
	if c.SentryEnvironment == "" {
		c.SentryEnvironment = c.Env
	}
	if c.PaddleAPIURL == "" {
		c.PaddleAPIURL = PaddleSandboxURL
		if c.Env == EnvProduction {
			c.PaddleAPIURL = PaddleProductionURL
		}
	}
	if c.guarded() {
		return
	}
	// A placeholder copied from .env.example counts as unset, so `cp .env.example .env` still runs.
	fill := func(dst *string, v string) {
		if *dst == "" || isPlaceholder(*dst) {
			*dst = v
		}
	}
	fillList := func(dst *[]string, v string) {
		if len(*dst) == 0 || isPlaceholder((*dst)[0]) {
			*dst = []string{v}
		}
	}
	if c.Env == EnvDevelopment && len(c.AdminEmails) == 0 {
		// `fabrica dev token --admin` signs in as this address, so the console and admin API work locally.
		c.AdminEmails = []string{DevAdminEmail}
	}
	fill(&c.ClerkSecretKey, "")
	fill(&c.PaddleAPIKey, "")
	fillList(&c.PaddleWebhookSecrets, devPaddleWebhookSecret)
	fillList(&c.ClerkWebhookSecrets, devClerkWebhookSecret)
	fill(&c.CheckoutSigningSecret, devCheckoutSecret)
	fill(&c.EmailUnsubscribeSecret, devUnsubscribeSecret)
	fill(&c.ErasureTombstoneKey, devErasureKey)
	if c.CompanyLegalName == "" || isPlaceholderName(c.CompanyLegalName) {
		c.CompanyLegalName = DevCompanyLegalName
	}
	// A worker key authenticates whoever holds it, so the dev key exists in development only (make run can
	// report job outcomes with it); in test only a key the test sets works. A placeholder never does.
	if len(c.WorkerAPIKeys) > 0 && isPlaceholder(c.WorkerAPIKeys[0]) {
		c.WorkerAPIKeys = nil
	}
	if len(c.WorkerAPIKeys) == 0 && c.Env == EnvDevelopment {
		c.WorkerAPIKeys = []string{devWorkerAPIKey}
	}
}

// Validate checks the values that are wrong in every environment. Deployed environments additionally pass
// Guard. Every message names the variable.
func (c Config) Validate() error {
	switch c.Env {
	case EnvDevelopment, EnvTest, EnvStaging, EnvProduction:
	default:
		return fieldErr("APP_ENV", "must be one of development, test, staging, production (got %q)", c.Env)
	}
	if c.Port < 1 || c.Port > 65535 {
		return fieldErr("PORT", "must be a TCP port (1-65535)")
	}
	if c.Host != "" && net.ParseIP(c.Host) == nil {
		return fieldErr("HOST", "must be an IP address to listen on, such as 127.0.0.1 or 0.0.0.0 (every interface), got %q", c.Host)
	}
	if c.DatabaseURL == "" {
		return fieldErr("DATABASE_URL", "is required (make run starts a local cluster and sets it for you)")
	}
	if c.DBMaxConns < 1 {
		return fieldErr("DB_MAX_CONNS", "must be at least 1")
	}
	if !oneOf(c.LogLevel, "debug", "info", "warn", "error") {
		return fieldErr("LOG_LEVEL", "must be one of debug, info, warn, error")
	}
	if !oneOf(c.LogFormat, "json", "text") {
		return fieldErr("LOG_FORMAT", "must be json or text")
	}
	if !oneOf(c.EmailDriver, "log", "smtp", "resend") {
		return fieldErr("EMAIL_DRIVER", "must be one of log, smtp, resend")
	}
	if c.HTTPMaxBodyBytes < 1 {
		return fieldErr("HTTP_MAX_BODY_BYTES", "must be positive")
	}
	if c.WebhookMaxBodyBytes < 1 {
		return fieldErr("WEBHOOK_MAX_BODY_BYTES", "must be positive")
	}
	if _, err := url.Parse(c.PublicBaseURL); err != nil || !strings.HasPrefix(c.PublicBaseURL, "http") {
		return fieldErr("PUBLIC_BASE_URL", "must be an absolute http(s) URL")
	}
	for _, o := range c.ClerkAuthorizedParties {
		if why := notAnOrigin(o); why != "" {
			return fieldErr("CLERK_AUTHORIZED_PARTIES", "entry %q %s", o, why)
		}
	}
	// The ledger bounds every spend's expires_in to 1s..24h (credits.MinExpiresIn/MaxExpiresIn), the default too.
	if c.CreditsOrphanAfter < time.Second || c.CreditsOrphanAfter > 24*time.Hour {
		return fieldErr("CREDITS_ORPHAN_AFTER", "must be between 1s and 24h")
	}
	if c.UsageDedupWindow < time.Hour || c.UsageDedupWindow > 366*24*time.Hour {
		return fieldErr("USAGE_DEDUP_WINDOW", "must be between 1h and 8784h (a year)")
	}
	if c.UsageEventRetention < c.UsageDedupWindow+31*24*time.Hour {
		return fieldErr("USAGE_EVENT_RETENTION", "must be at least USAGE_DEDUP_WINDOW plus 744h (a month)")
	}
	if c.SentrySampleRate < 0 || c.SentrySampleRate > 1 {
		return fieldErr("SENTRY_SAMPLE_RATE", "must be between 0 and 1 (the share of errors reported)")
	}
	for _, n := range c.TrustedProxies {
		if tooWideToTrust(n) {
			return fieldErr("TRUSTED_PROXIES", "has %s, wider than any private network: anyone in it could choose the client IP "+
				"we record and rate-limit by; list the proxies' addresses or their private range (at most /8 for IPv4, /7 for IPv6)", n)
		}
	}
	if c.DisposableDomainsURL != "" {
		// Plain HTTP would let anyone on the path rewrite the blocklist every sign-up is screened against.
		if u, err := url.Parse(c.DisposableDomainsURL); err != nil || u.Scheme != "https" || u.Host == "" {
			return fieldErr("DISPOSABLE_DOMAINS_URL", "must be an absolute https URL")
		}
	}
	if c.guarded() {
		return c.Guard()
	}
	return nil
}

// ListenAddr is the address serve listens on: HOST and PORT. Without a HOST, development listens on
// 127.0.0.1 only, because its development secrets and dev-token sessions are public and anyone who reaches
// the port could use them; every other environment listens on every interface, as a container behind a
// PaaS's proxy must.
func (c Config) ListenAddr() string {
	host := c.Host
	if host == "" && c.Env == EnvDevelopment {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(c.Port))
}

// FieldError names the variable that made the configuration unusable.
type FieldError struct {
	Name   string
	Reason string
}

func (e *FieldError) Error() string { return "config: " + e.Name + " " + e.Reason }

func fieldErr(name, format string, args ...any) error {
	return &FieldError{Name: name, Reason: fmt.Sprintf(format, args...)}
}

func oneOf(v string, allowed ...string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// notAnOrigin says why s can never equal a token's azp, or returns "". Clerk copies the browser's Origin header
// into azp and we compare exactly, so an entry must be written the way browsers send it: lower-case
// scheme://host[:port], no default port, nothing after the host.
func notAnOrigin(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "is not an http(s) origin such as https://app.example.com"
	}
	host := strings.ToLower(u.Host)
	if (u.Scheme == "https" && u.Port() == "443") || (u.Scheme == "http" && u.Port() == "80") {
		host = strings.TrimSuffix(host, ":"+u.Port())
	}
	if want := u.Scheme + "://" + host; s != want {
		return "must be written as browsers send Origin (scheme and host; no path, trailing slash or default port): " + want
	}
	return ""
}
