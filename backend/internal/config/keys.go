package config

// Key describes one environment variable the service reads. The table is the single source of truth for
// names and defaults: Load registers every key with Viper (Unmarshal-style lookups ignore keys Viper has
// not seen), and a test keeps it in step with .env.example.
type Key struct {
	Name    string
	Default string
	// Secret keys are masked in Redacted and checked by the boot guard.
	Secret bool
}

// Keys lists every variable in the order .env.example documents them.
var Keys = []Key{
	// Fail closed: a deploy that forgets APP_ENV runs the boot guard instead of running on dev secrets.
	// make run, make test, the scripts and .env.example say development explicitly.
	{Name: "APP_ENV", Default: EnvProduction},
	{Name: "APP_NAME", Default: "Fabrica"},
	{Name: "PORT", Default: "8080"},
	// Empty: 127.0.0.1 in development (the public dev secrets are active there), every interface elsewhere.
	{Name: "HOST"},
	{Name: "DATABASE_URL", Secret: true},
	{Name: "DB_MAX_CONNS", Default: "10"},
	{Name: "DB_SIMPLE_PROTOCOL", Default: "false"},
	{Name: "LOG_LEVEL", Default: "info"},
	{Name: "LOG_FORMAT"},
	{Name: "CORS_ORIGINS"},
	{Name: "HTTP_READ_TIMEOUT", Default: "15s"},
	{Name: "HTTP_WRITE_TIMEOUT", Default: "30s"},
	{Name: "HTTP_IDLE_TIMEOUT", Default: "120s"},
	{Name: "HTTP_MAX_BODY_BYTES", Default: "1048576"},
	{Name: "SHUTDOWN_TIMEOUT", Default: "20s"},
	{Name: "WEBHOOK_MAX_BODY_BYTES", Default: "1048576"},
	{Name: "WEBHOOK_TOLERANCE", Default: "5m"},
	{Name: "SERVE_WORKERS", Default: "true"},
	{Name: "PADDLE_WEBHOOK_SECRET", Secret: true},
	{Name: "CLERK_WEBHOOK_SECRET", Secret: true},
	{Name: "CLERK_SECRET_KEY", Secret: true},
	{Name: "CLERK_JWT_KEY", Secret: true},
	{Name: "CLERK_AUTHORIZED_PARTIES"},
	{Name: "CLERK_PUBLISHABLE_KEY"},
	{Name: "DEV_SESSION_KEY_FILE", Default: ".data/dev-session-key.pem"},
	{Name: "PADDLE_API_KEY", Secret: true},
	{Name: "PADDLE_API_URL"},
	{Name: "PADDLE_EVENTS_SYNC_INTERVAL", Default: "10m"},
	{Name: "CHECKOUT_SIGNING_SECRET", Secret: true},
	{Name: "TIERS_FILE"},
	{Name: "EMAIL_DRIVER", Default: "log"},
	{Name: "EMAIL_FROM", Default: "Fabrica <hello@localhost>"},
	{Name: "SMTP_URL", Secret: true},
	{Name: "RESEND_API_KEY", Secret: true},
	{Name: "EMAIL_UNSUBSCRIBE_SECRET", Secret: true},
	{Name: "EMAIL_RATE_PER_SECOND", Default: "2"},
	{Name: "ADMIN_EMAILS"},
	{Name: "ADMIN_CLERK_USER_IDS"},
	{Name: "PUBLIC_BASE_URL", Default: "http://localhost:8080"},
	{Name: "ACCOUNT_DELETION_GRACE", Default: "720h"},
	{Name: "ERASURE_TOMBSTONE_KEY", Secret: true},
	{Name: "CREDITS_ORPHAN_AFTER", Default: "15m"},
	{Name: "WORKER_API_KEYS", Secret: true},
	{Name: "WEBHOOK_ARCHIVE_RETENTION", Default: "2160h"},
	{Name: "AUDIT_RETENTION", Default: "17520h"},
	{Name: "AUDIT_CONSENT_RETENTION", Default: "26280h"},
	{Name: "USAGE_DEDUP_WINDOW", Default: "840h"},
	{Name: "USAGE_EVENT_RETENTION", Default: "9504h"},
	{Name: "RATE_LIMIT_PER_MINUTE", Default: "120"},
	{Name: "METRICS_TOKEN", Secret: true},
	{Name: "TRUSTED_PROXIES"},
	{Name: "COMPANY_LEGAL_NAME"},
	{Name: "DISPOSABLE_DOMAINS_URL"},
	{Name: "SENTRY_DSN", Secret: true},
	{Name: "SENTRY_SAMPLE_RATE", Default: "1"},
	{Name: "SENTRY_ENVIRONMENT"},
}
