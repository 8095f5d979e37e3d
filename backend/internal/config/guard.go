package config

import (
	"log/slog"
	"net/url"
	"strconv"
	"strings"
)

// minHMACKeyLen is the shortest key we accept for HMACs we own (checkout and unsubscribe tokens, erasure
// tombstones): 32 bytes,
// as `openssl rand -hex 32` or secrets.token_urlsafe(32) produce.
const minHMACKeyLen = 32

// minWorkerKeyLen is the shortest WORKER_API_KEYS entry we accept: a bearer secret, as long as an HMAC key.
const minWorkerKeyLen = 32

// Guard refuses a staging or production configuration (or a process's test one) that would run with a
// missing, weak or placeholder secret, with a dev-only driver, or with CORS opened to localhost. It returns
// the first problem as a *FieldError naming the variable.
func (c Config) Guard() error {
	for _, s := range []struct {
		name   string
		values []string
	}{
		{"PADDLE_WEBHOOK_SECRET", c.PaddleWebhookSecrets},
		{"CLERK_WEBHOOK_SECRET", c.ClerkWebhookSecrets},
		{"PADDLE_API_KEY", single(c.PaddleAPIKey)},
		{"CHECKOUT_SIGNING_SECRET", single(c.CheckoutSigningSecret)},
		{"EMAIL_UNSUBSCRIBE_SECRET", single(c.EmailUnsubscribeSecret)},
		{"ERASURE_TOMBSTONE_KEY", single(c.ErasureTombstoneKey)},
	} {
		if err := requireSecret(c.Env, s.name, s.values); err != nil {
			return err
		}
	}
	for _, s := range []struct{ name, value string }{
		{"CHECKOUT_SIGNING_SECRET", c.CheckoutSigningSecret},
		{"EMAIL_UNSUBSCRIBE_SECRET", c.EmailUnsubscribeSecret},
		{"ERASURE_TOMBSTONE_KEY", c.ErasureTombstoneKey},
	} {
		if len(s.value) < minHMACKeyLen {
			return fieldErr(s.name, "must be at least %d characters (generate one with: openssl rand -hex 32)", minHMACKeyLen)
		}
	}
	if c.ClerkSecretKey == "" && c.ClerkJWTKey == "" {
		return fieldErr("CLERK_SECRET_KEY", "or CLERK_JWT_KEY is required in %s to verify sessions", c.Env)
	}
	for _, s := range []struct{ name, value string }{
		{"CLERK_SECRET_KEY", c.ClerkSecretKey},
		{"CLERK_JWT_KEY", c.ClerkJWTKey},
	} {
		if s.value != "" && isPlaceholder(s.value) {
			return fieldErr(s.name, "is still a placeholder value")
		}
	}
	if err := c.guardAuthorizedParties(); err != nil {
		return err
	}
	if err := c.guardEmail(); err != nil {
		return err
	}
	// Every email's footer names the company (the original refuses its "TBD" sentinel the same way).
	if c.CompanyLegalName == "" || isPlaceholderName(c.CompanyLegalName) {
		return fieldErr("COMPANY_LEGAL_NAME", "is required in %s: the legal name of the company, shown in every email's footer", c.Env)
	}
	// /metrics exposes business volumes (ledger movements, deliveries per provider) and the pool's state.
	if err := requireSecret(c.Env, "METRICS_TOKEN", single(c.MetricsToken)); err != nil {
		return err
	}
	if len(c.MetricsToken) < minHMACKeyLen {
		return fieldErr("METRICS_TOKEN", "must be at least %d characters (generate one with: openssl rand -hex 32)", minHMACKeyLen)
	}
	if err := guardWorkerKeys(c.WorkerAPIKeys); err != nil {
		return err
	}
	for _, o := range c.CORSOrigins {
		if isLocalOrigin(o) {
			return fieldErr("CORS_ORIGINS", "lists a local origin (%s) in %s", o, c.Env)
		}
	}
	if isLocalOrigin(c.PublicBaseURL) {
		return fieldErr("PUBLIC_BASE_URL", "points at localhost in %s; links in emails would be dead", c.Env)
	}
	return nil
}

// guardAuthorizedParties: without an allow-list a session token minted for any origin of the Clerk instance
// (another app, a preview deploy) is accepted. Validate has already checked that each entry is an origin.
func (c Config) guardAuthorizedParties() error {
	if c.ClerkSecretKey == "" && c.ClerkJWTKey == "" {
		return nil // sessions disabled; unreachable while Guard requires a key, kept so the rule reads alone
	}
	if len(c.ClerkAuthorizedParties) == 0 {
		return fieldErr("CLERK_AUTHORIZED_PARTIES", "is required in %s: the origins of our frontends, matched against each session token's azp", c.Env)
	}
	for _, o := range c.ClerkAuthorizedParties {
		if isLocalOrigin(o) {
			return fieldErr("CLERK_AUTHORIZED_PARTIES", "lists a local origin (%s) in %s", o, c.Env)
		}
	}
	return nil
}

func (c Config) guardEmail() error {
	switch c.EmailDriver {
	case "log":
		return fieldErr("EMAIL_DRIVER", "is log, which drops every email; use smtp or resend in %s", c.Env)
	case "smtp":
		return requireSecret(c.Env, "SMTP_URL", single(c.SMTPURL))
	case "resend":
		return requireSecret(c.Env, "RESEND_API_KEY", single(c.ResendAPIKey))
	}
	return nil
}

// guardWorkerKeys refuses a weak or placeholder service key. No key at all is allowed (a deployment without
// metered jobs); complete and fail then answer 401 to everyone and the reconciler refunds every deduct at
// its deadline.
func guardWorkerKeys(keys []string) error {
	for _, k := range keys {
		if isPlaceholder(k) {
			return fieldErr("WORKER_API_KEYS", "is still a placeholder or development value")
		}
		if len(k) < minWorkerKeyLen {
			return fieldErr("WORKER_API_KEYS", "must hold keys of at least %d characters each (generate one with: openssl rand -hex 32)", minWorkerKeyLen)
		}
	}
	return nil
}

func requireSecret(env, name string, values []string) error {
	if len(values) == 0 {
		return fieldErr(name, "is required in %s (only APP_ENV=development fills a development value)", env)
	}
	for _, v := range values {
		if isPlaceholder(v) {
			return fieldErr(name, "is still a placeholder or development value")
		}
	}
	return nil
}

func single(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

// placeholderMarkers are the words .env.example and the dev defaults use, so a copied file or a dev value
// can never reach production unnoticed.
var placeholderMarkers = []string{"change-me", "changeme", "replace-me", "dev-only-insecure", "your-"}

func isPlaceholder(v string) bool {
	l := strings.ToLower(v)
	for _, m := range placeholderMarkers {
		if strings.Contains(l, m) {
			return true
		}
	}
	return v == devClerkWebhookSecret || v == devPaddleWebhookSecret
}

// isPlaceholderName is a placeholder in a non-secret text setting: a marker word, or TBD.
func isPlaceholderName(v string) bool {
	return isPlaceholder(v) || strings.EqualFold(strings.TrimSpace(v), "tbd")
}

func isLocalOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "127.0.0.1" || h == "::1" || h == "0.0.0.0"
}

// Redacted returns the configuration as log attributes with every secret masked: a secret shows only
// whether it is set and how long it is, never a prefix of it.
func (c Config) Redacted() []slog.Attr {
	mask := func(v string) string {
		if v == "" {
			return "unset"
		}
		return "set(" + strconv.Itoa(len(v)) + ")"
	}
	maskList := func(v []string) string {
		return "set(" + strconv.Itoa(len(v)) + " values)"
	}
	return []slog.Attr{
		slog.String("app_env", c.Env),
		slog.String("host", c.Host),
		slog.Int("port", c.Port),
		slog.String("database_url", redactURL(c.DatabaseURL)),
		slog.Int("db_max_conns", c.DBMaxConns),
		slog.Bool("db_simple_protocol", c.DBSimpleProtocol),
		slog.String("log_level", c.LogLevel),
		slog.String("log_format", c.LogFormat),
		slog.Any("cors_origins", c.CORSOrigins),
		slog.String("paddle_webhook_secret", maskList(c.PaddleWebhookSecrets)),
		slog.String("clerk_webhook_secret", maskList(c.ClerkWebhookSecrets)),
		slog.String("clerk_secret_key", mask(c.ClerkSecretKey)),
		slog.String("clerk_jwt_key", mask(c.ClerkJWTKey)),
		slog.Any("clerk_authorized_parties", c.ClerkAuthorizedParties),
		slog.String("clerk_publishable_key", c.ClerkPublishableKey),
		slog.String("paddle_api_key", mask(c.PaddleAPIKey)),
		slog.String("paddle_api_url", c.PaddleAPIURL),
		slog.String("checkout_signing_secret", mask(c.CheckoutSigningSecret)),
		slog.String("email_driver", c.EmailDriver),
		slog.String("email_from", c.EmailFrom),
		slog.String("smtp_url", redactURL(c.SMTPURL)),
		slog.String("resend_api_key", mask(c.ResendAPIKey)),
		slog.String("email_unsubscribe_secret", mask(c.EmailUnsubscribeSecret)),
		slog.Int("admin_emails", len(c.AdminEmails)),
		slog.Int("admin_clerk_user_ids", len(c.AdminClerkUserIDs)),
		slog.String("metrics_token", mask(c.MetricsToken)),
		slog.Int("trusted_proxies", len(c.TrustedProxies)),
		slog.String("public_base_url", c.PublicBaseURL),
		slog.String("erasure_tombstone_key", mask(c.ErasureTombstoneKey)),
		slog.String("worker_api_keys", maskList(c.WorkerAPIKeys)),
		slog.String("company_legal_name", c.CompanyLegalName),
		slog.String("disposable_domains_url", redactURL(c.DisposableDomainsURL)),
		slog.String("sentry_dsn", mask(c.SentryDSN)),
		slog.Float64("sentry_sample_rate", c.SentrySampleRate),
		slog.String("sentry_environment", c.SentryEnvironment),
	}
}

// plainQueryKeys are the URL query parameters Redacted shows: connection settings that never carry a
// secret. Every other parameter's value is masked (pgx takes password=..., and a list URL may carry a token).
var plainQueryKeys = map[string]bool{"sslmode": true, "connect_timeout": true, "application_name": true,
	"target_session_attrs": true, "host": true, "port": true}

// redactURL shows where a URL points and masks what may be a secret: the password, every query value but
// plainQueryKeys', and the fragment. A key=value DSN, or anything that is not a hierarchical URL, is
// masked whole.
func redactURL(raw string) string {
	const masked = "xxxxx"
	if raw == "" {
		return "unset"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return "set(dsn)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), masked)
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			return "set(dsn)"
		}
		for k, vs := range q {
			if !plainQueryKeys[strings.ToLower(k)] {
				for i := range vs {
					vs[i] = masked
				}
			}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
