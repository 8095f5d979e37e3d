package config

import (
	"bufio"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// exampleEntries reads NAME=value lines from the repository's .env.example, in order.
func exampleEntries(t *testing.T) ([]string, map[string]string) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", ".env.example"))
	require.NoError(t, err)
	defer f.Close()
	var names []string
	values := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		require.True(t, ok, "line %q", line)
		names = append(names, name)
		values[name] = value
	}
	require.NoError(t, sc.Err())
	return names, values
}

func TestEnvExampleMatchesKeys(t *testing.T) {
	t.Parallel()
	names, _ := exampleEntries(t)
	var keys []string
	for _, k := range Keys {
		keys = append(keys, k.Name)
	}
	require.Equal(t, keys, names, ".env.example and config.Keys must list the same variables in the same order")
}

func mapEnv(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDevelopmentDefaults(t *testing.T) {
	t.Parallel()
	c, err := Load(mapEnv(map[string]string{"APP_ENV": EnvDevelopment, "DATABASE_URL": "postgres://x@localhost/db"}), "")
	require.NoError(t, err)
	require.Equal(t, EnvDevelopment, c.Env)
	require.Equal(t, 8080, c.Port)
	require.Equal(t, "text", c.LogFormat)
	require.Equal(t, PaddleSandboxURL, c.PaddleAPIURL)
	require.Equal(t, []string{DevPaddleWebhookSecret}, c.PaddleWebhookSecrets)
	require.Equal(t, []string{DevClerkWebhookSecret}, c.ClerkWebhookSecrets)
	require.GreaterOrEqual(t, len(c.CheckoutSigningSecret), minHMACKeyLen)
	require.GreaterOrEqual(t, len(c.ErasureTombstoneKey), minHMACKeyLen)
	require.Equal(t, "log", c.EmailDriver)
	require.Equal(t, 15*time.Minute, c.CreditsOrphanAfter, "the default expires_in of a spend")
	require.Equal(t, DevCompanyLegalName, c.CompanyLegalName, "the email footer has a name in development")
	require.Equal(t, EnvDevelopment, c.SentryEnvironment)
	require.Equal(t, 1.0, c.SentrySampleRate)
}

func TestDevelopmentAcceptsACopiedEnvExample(t *testing.T) {
	t.Parallel()
	_, values := exampleEntries(t)
	values["DATABASE_URL"] = "postgres://x@localhost/db"
	c, err := Load(mapEnv(values), "")
	require.NoError(t, err)
	require.Equal(t, []string{DevClerkWebhookSecret}, c.ClerkWebhookSecrets, "placeholders count as unset in development")
	require.Empty(t, c.ClerkSecretKey)
}

func TestDotenvIsReadInDevelopmentOnlyAndEnvWins(t *testing.T) {
	t.Parallel()
	dotenv := filepath.Join(t.TempDir(), ".env")
	require.NoError(t, os.WriteFile(dotenv, []byte("APP_ENV=development\nDATABASE_URL=postgres://file@localhost/db\nPORT=9000\n"), 0o600))

	c, err := Load(mapEnv(map[string]string{"APP_ENV": EnvDevelopment, "PORT": "9100"}), dotenv)
	require.NoError(t, err)
	require.Equal(t, "postgres://file@localhost/db", c.DatabaseURL)
	require.Equal(t, 9100, c.Port, "the environment overrides .env")

	_, err = Load(mapEnv(map[string]string{"APP_ENV": EnvStaging}), dotenv)
	requireField(t, err, "DATABASE_URL")

	_, err = Load(mapEnv(map[string]string{"APP_ENV": EnvDevelopment}), filepath.Join(t.TempDir(), "missing.env"))
	requireField(t, err, "DATABASE_URL")
}

// A .env copied from .env.example onto a server says APP_ENV=development. Unless the process environment
// itself says development the file is not read at all, so the deploy stays production (the boot guard
// names the first missing secret) instead of becoming development with the public dev secrets.
func TestCopiedDotenvCannotTurnADeployIntoDevelopment(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", ".env.example"))
	require.NoError(t, err)
	dotenv := filepath.Join(t.TempDir(), ".env")
	require.NoError(t, os.WriteFile(dotenv, append(raw, "\nDATABASE_URL=postgres://file@localhost/db\n"...), 0o600))

	_, err = Load(mapEnv(map[string]string{"DATABASE_URL": "postgres://app@db.internal/fabrica"}), dotenv)
	requireField(t, err, "PADDLE_WEBHOOK_SECRET")
	_, err = Load(mapEnv(nil), dotenv)
	requireField(t, err, "DATABASE_URL")

	c, err := Load(mapEnv(map[string]string{"APP_ENV": EnvDevelopment}), dotenv)
	require.NoError(t, err)
	require.Equal(t, EnvDevelopment, c.Env)
	require.Equal(t, "postgres://file@localhost/db", c.DatabaseURL, "development still reads it")
}

// APP_ENV=test in a process's environment gets the boot guard like staging: nothing fills the public
// development secrets there (anyone could sign webhooks with them). Only the in-process tests' loader has
// the test environment without the guard.
func TestTestEnvironmentOutsideGoTestGetsTheBootGuard(t *testing.T) {
	t.Parallel()
	test := map[string]string{"APP_ENV": EnvTest, "DATABASE_URL": "postgres://app@db.internal/fabrica"}
	_, err := Load(mapEnv(test), "")
	requireField(t, err, "PADDLE_WEBHOOK_SECRET")
	require.ErrorContains(t, err, "is required in test")

	e := productionEnv()
	e["APP_ENV"] = EnvTest
	c, err := Load(mapEnv(e), "")
	require.NoError(t, err, "a test process with its own secrets passes the guard")
	require.Equal(t, []string{e["PADDLE_WEBHOOK_SECRET"]}, c.PaddleWebhookSecrets)

	c, err = LoadForTest(mapEnv(test))
	require.NoError(t, err)
	require.Equal(t, []string{DevPaddleWebhookSecret}, c.PaddleWebhookSecrets, "go test keeps its test environment")
}

// The hole "a forgotten APP_ENV running on dev secrets" (docs/security.md): fail closed. Without APP_ENV the binary is
// production, so a deploy that forgets the variable refuses to start on dev secrets (naming the first missing one)
// instead of running with them.
func TestForgottenAppEnvIsProduction(t *testing.T) {
	t.Parallel()
	_, err := Load(mapEnv(map[string]string{"DATABASE_URL": "postgres://app@db.internal/fabrica"}), "")
	requireField(t, err, "PADDLE_WEBHOOK_SECRET")
	e := productionEnv()
	delete(e, "APP_ENV")
	c, err := Load(mapEnv(e), "")
	require.NoError(t, err)
	require.Equal(t, EnvProduction, c.Env)
}

// productionEnv is a complete, valid production configuration.
func productionEnv() map[string]string {
	return map[string]string{
		"APP_ENV":                  EnvProduction,
		"DATABASE_URL":             "postgres://app:pw@db.internal:5432/fabrica?sslmode=require",
		"PADDLE_WEBHOOK_SECRET":    "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI",
		"CLERK_WEBHOOK_SECRET":     "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"CLERK_SECRET_KEY":         "sk_live_abcdefghijklmnopqrstuvwxyz",
		"CLERK_AUTHORIZED_PARTIES": "https://app.example.com,https://www.example.com",
		"PADDLE_API_KEY":           "pdl_live_apikey_01abcdefghijklmnopqrstuvwx",
		"CHECKOUT_SIGNING_SECRET":  strings.Repeat("c", 32),
		"EMAIL_UNSUBSCRIBE_SECRET": strings.Repeat("u", 40),
		"ERASURE_TOMBSTONE_KEY":    strings.Repeat("e", 32),
		"EMAIL_DRIVER":             "resend",
		"RESEND_API_KEY":           "re_live_123456",
		"CORS_ORIGINS":             "https://app.example.com",
		"PUBLIC_BASE_URL":          "https://api.example.com",
		"METRICS_TOKEN":            strings.Repeat("m", 32),
		"COMPANY_LEGAL_NAME":       "Example Software GmbH",
	}
}

func requireField(t *testing.T, err error, name string) {
	t.Helper()
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "want a FieldError naming %s, got %v", name, err)
	require.Equal(t, name, fe.Name, "error: %v", err)
	require.NotContains(t, err.Error(), "\n", "one line")
}

func TestProductionValid(t *testing.T) {
	t.Parallel()
	c, err := Load(mapEnv(productionEnv()), "")
	require.NoError(t, err)
	require.Equal(t, "json", c.LogFormat)
	require.Equal(t, PaddleProductionURL, c.PaddleAPIURL)
	require.Equal(t, []string{"https://app.example.com", "https://www.example.com"}, c.ClerkAuthorizedParties)
}

func TestBootGuardRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change map[string]string
		want   string
	}{
		{"missing paddle webhook secret", map[string]string{"PADDLE_WEBHOOK_SECRET": ""}, "PADDLE_WEBHOOK_SECRET"},
		{"missing clerk webhook secret", map[string]string{"CLERK_WEBHOOK_SECRET": ""}, "CLERK_WEBHOOK_SECRET"},
		{"placeholder second rotation secret", map[string]string{"CLERK_WEBHOOK_SECRET": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw,change-me"}, "CLERK_WEBHOOK_SECRET"},
		{"missing paddle api key", map[string]string{"PADDLE_API_KEY": ""}, "PADDLE_API_KEY"},
		{"missing checkout secret", map[string]string{"CHECKOUT_SIGNING_SECRET": ""}, "CHECKOUT_SIGNING_SECRET"},
		{"short checkout secret", map[string]string{"CHECKOUT_SIGNING_SECRET": strings.Repeat("c", 31)}, "CHECKOUT_SIGNING_SECRET"},
		{"missing unsubscribe secret", map[string]string{"EMAIL_UNSUBSCRIBE_SECRET": ""}, "EMAIL_UNSUBSCRIBE_SECRET"},
		{"short unsubscribe secret", map[string]string{"EMAIL_UNSUBSCRIBE_SECRET": "short"}, "EMAIL_UNSUBSCRIBE_SECRET"},
		{"dev default unsubscribe secret", map[string]string{"EMAIL_UNSUBSCRIBE_SECRET": devUnsubscribeSecret}, "EMAIL_UNSUBSCRIBE_SECRET"},
		{"missing erasure tombstone key", map[string]string{"ERASURE_TOMBSTONE_KEY": ""}, "ERASURE_TOMBSTONE_KEY"},
		{"short erasure tombstone key", map[string]string{"ERASURE_TOMBSTONE_KEY": strings.Repeat("e", 31)}, "ERASURE_TOMBSTONE_KEY"},
		{"dev default erasure tombstone key", map[string]string{"ERASURE_TOMBSTONE_KEY": devErasureKey}, "ERASURE_TOMBSTONE_KEY"},
		{"dev default clerk webhook secret", map[string]string{"CLERK_WEBHOOK_SECRET": devClerkWebhookSecret}, "CLERK_WEBHOOK_SECRET"},
		{"no clerk session key", map[string]string{"CLERK_SECRET_KEY": ""}, "CLERK_SECRET_KEY"},
		{"placeholder jwt key", map[string]string{"CLERK_JWT_KEY": "your-pem-here"}, "CLERK_JWT_KEY"},
		{"no authorized parties", map[string]string{"CLERK_AUTHORIZED_PARTIES": ""}, "CLERK_AUTHORIZED_PARTIES"},
		{"no authorized parties with a jwt key", map[string]string{"CLERK_SECRET_KEY": "", "CLERK_JWT_KEY": "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A", "CLERK_AUTHORIZED_PARTIES": ""}, "CLERK_AUTHORIZED_PARTIES"},
		{"blank authorized parties", map[string]string{"CLERK_AUTHORIZED_PARTIES": " , "}, "CLERK_AUTHORIZED_PARTIES"},
		{"localhost authorized party", map[string]string{"CLERK_AUTHORIZED_PARTIES": "https://app.example.com,http://localhost:3000"}, "CLERK_AUTHORIZED_PARTIES"},
		{"loopback authorized party", map[string]string{"CLERK_AUTHORIZED_PARTIES": "http://127.0.0.1:5173"}, "CLERK_AUTHORIZED_PARTIES"},
		{"authorized party with a path", map[string]string{"CLERK_AUTHORIZED_PARTIES": "https://app.example.com/login"}, "CLERK_AUTHORIZED_PARTIES"},
		{"authorized party with a trailing slash", map[string]string{"CLERK_AUTHORIZED_PARTIES": "https://app.example.com/"}, "CLERK_AUTHORIZED_PARTIES"},
		{"authorized party without a scheme", map[string]string{"CLERK_AUTHORIZED_PARTIES": "app.example.com"}, "CLERK_AUTHORIZED_PARTIES"},
		{"authorized party not http", map[string]string{"CLERK_AUTHORIZED_PARTIES": "chrome-extension://abcdef"}, "CLERK_AUTHORIZED_PARTIES"},
		{"authorized party with a query", map[string]string{"CLERK_AUTHORIZED_PARTIES": "https://app.example.com?x=1"}, "CLERK_AUTHORIZED_PARTIES"},
		{"authorized party in upper case", map[string]string{"CLERK_AUTHORIZED_PARTIES": "https://App.Example.com"}, "CLERK_AUTHORIZED_PARTIES"},
		{"authorized party with the default port", map[string]string{"CLERK_AUTHORIZED_PARTIES": "https://app.example.com:443"}, "CLERK_AUTHORIZED_PARTIES"},
		{"log mailer", map[string]string{"EMAIL_DRIVER": "log"}, "EMAIL_DRIVER"},
		{"smtp without url", map[string]string{"EMAIL_DRIVER": "smtp"}, "SMTP_URL"},
		{"resend without key", map[string]string{"RESEND_API_KEY": ""}, "RESEND_API_KEY"},
		{"cors localhost", map[string]string{"CORS_ORIGINS": "https://app.example.com,http://localhost:3000"}, "CORS_ORIGINS"},
		{"cors loopback ip", map[string]string{"CORS_ORIGINS": "http://127.0.0.1:5173"}, "CORS_ORIGINS"},
		{"public url localhost", map[string]string{"PUBLIC_BASE_URL": "http://localhost:8080"}, "PUBLIC_BASE_URL"},
		{"missing database url", map[string]string{"DATABASE_URL": ""}, "DATABASE_URL"},
		{"no metrics token", map[string]string{"METRICS_TOKEN": ""}, "METRICS_TOKEN"},
		{"short metrics token", map[string]string{"METRICS_TOKEN": "secret"}, "METRICS_TOKEN"},
		{"placeholder metrics token", map[string]string{"METRICS_TOKEN": "change-me-metrics-token-0123456789abcdef"}, "METRICS_TOKEN"},
		{"trusted proxy that is not a CIDR", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8,lb.internal"}, "TRUSTED_PROXIES"},
		{"trusted proxies trusting every IPv4 address", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8,0.0.0.0/0"}, "TRUSTED_PROXIES"},
		{"short worker key", map[string]string{"WORKER_API_KEYS": strings.Repeat("w", 31)}, "WORKER_API_KEYS"},
		{"short second worker key", map[string]string{"WORKER_API_KEYS": strings.Repeat("w", 40) + ",short"}, "WORKER_API_KEYS"},
		{"placeholder worker key", map[string]string{"WORKER_API_KEYS": "change-me-worker-api-key-32-chars-minimum"}, "WORKER_API_KEYS"},
		{"dev default worker key", map[string]string{"WORKER_API_KEYS": devWorkerAPIKey}, "WORKER_API_KEYS"},
		{"no company legal name", map[string]string{"COMPANY_LEGAL_NAME": ""}, "COMPANY_LEGAL_NAME"},
		{"company legal name still TBD", map[string]string{"COMPANY_LEGAL_NAME": "TBD"}, "COMPANY_LEGAL_NAME"},
		{"placeholder company legal name", map[string]string{"COMPANY_LEGAL_NAME": "change-me-company-name"}, "COMPANY_LEGAL_NAME"},
	}
	for _, env := range []string{EnvProduction, EnvStaging} {
		for _, tc := range cases {
			t.Run(env+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				e := productionEnv()
				e["APP_ENV"] = env
				for k, v := range tc.change {
					e[k] = v
				}
				_, err := Load(mapEnv(e), "")
				requireField(t, err, tc.want)
			})
		}
	}
}

func TestBootGuardRefusesEveryEnvExamplePlaceholder(t *testing.T) {
	t.Parallel()
	_, values := exampleEntries(t)
	for _, k := range Keys {
		v := values[k.Name]
		if !k.Secret || v == "" {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			e := productionEnv()
			e[k.Name] = v
			_, err := Load(mapEnv(e), "")
			requireField(t, err, k.Name)
		})
	}
}

// The hole "users reporting their own job outcomes" (docs/security.md): job outcomes are reported with a service key.
// Deployed environments accept only real keys (none is allowed: nobody can then report an outcome); the dev key exists
// in development only, and a placeholder copied from .env.example authenticates nowhere.
func TestWorkerKeys(t *testing.T) {
	t.Parallel()
	e := productionEnv()
	e["WORKER_API_KEYS"] = strings.Repeat("a", 32) + ", " + strings.Repeat("b", 64)
	c, err := Load(mapEnv(e), "")
	require.NoError(t, err)
	require.Equal(t, []string{strings.Repeat("a", 32), strings.Repeat("b", 64)}, c.WorkerAPIKeys)
	c, err = Load(mapEnv(productionEnv()), "")
	require.NoError(t, err)
	require.Empty(t, c.WorkerAPIKeys)

	dev := map[string]string{"APP_ENV": EnvDevelopment, "DATABASE_URL": "postgres://x@localhost/db"}
	c, err = Load(mapEnv(dev), "")
	require.NoError(t, err)
	require.Equal(t, []string{devWorkerAPIKey}, c.WorkerAPIKeys)
	dev["APP_ENV"] = EnvTest
	c, err = LoadForTest(mapEnv(dev))
	require.NoError(t, err)
	require.Empty(t, c.WorkerAPIKeys, "no dev key outside development")
	dev["WORKER_API_KEYS"] = "change-me-worker-api-key-32-chars-minimum"
	c, err = LoadForTest(mapEnv(dev))
	require.NoError(t, err)
	require.Empty(t, c.WorkerAPIKeys, "a placeholder is no key")
}

func TestInvalidValuesNameTheVariable(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"APP_ENV": "prod", "PORT": "http", "DB_MAX_CONNS": "0", "LOG_LEVEL": "loud", "LOG_FORMAT": "xml",
		"EMAIL_DRIVER": "pigeon", "SHUTDOWN_TIMEOUT": "soon", "DB_SIMPLE_PROTOCOL": "maybe",
		"CLERK_AUTHORIZED_PARTIES": "http://localhost:3000/",
		"CREDITS_ORPHAN_AFTER":     "25h",
		"SENTRY_SAMPLE_RATE":       "1.5",
		"DISPOSABLE_DOMAINS_URL":   "ftp://lists.example/domains.txt",
		"HOST":                     "dev-box.local",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(mapEnv(map[string]string{"DATABASE_URL": "postgres://x@h/d", name: value}), "")
			requireField(t, err, name)
		})
	}
}

func TestRedactedHidesSecrets(t *testing.T) {
	t.Parallel()
	e := productionEnv()
	c, err := Load(mapEnv(e), "")
	require.NoError(t, err)
	out := fmt.Sprint(c.Redacted())
	for _, k := range Keys {
		if k.Secret && e[k.Name] != "" {
			require.NotContains(t, out, e[k.Name], k.Name)
		}
	}
	require.NotContains(t, out, ":pw@", "the database password is masked")
}

// TRUSTED_PROXIES decides whose X-Forwarded-For is believed for the IP an audit row records and the rate
// limits key on. A range wider than a private network trusts the world to name its own IP, so it is refused
// in every environment, naming the variable; a private network and a CDN's published ranges pass.
func TestTrustedProxiesThatTrustEveryoneAreRefused(t *testing.T) {
	t.Parallel()
	for _, tooWide := range []string{"0.0.0.0/0", "::/0", "0.0.0.0/1", "128.0.0.0/1", "8.0.0.0/7", "2000::/3",
		"::ffff:0.0.0.0/96", "::ffff:10.0.0.0/103", "10.0.0.0/8, 0.0.0.0/0"} {
		for _, env := range []map[string]string{productionEnv(), {"APP_ENV": EnvDevelopment, "DATABASE_URL": "postgres://x@localhost/db"}} {
			e := maps.Clone(env)
			e["TRUSTED_PROXIES"] = tooWide
			_, err := Load(mapEnv(e), "")
			requireField(t, err, "TRUSTED_PROXIES")
			require.ErrorContains(t, err, "wider than any private network", tooWide)
		}
	}
	for _, ok := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7", "fdaa::/16",
		"104.16.0.0/13", "2a06:98c0::/29", "203.0.113.7", "2001:db8::1", "::ffff:10.0.0.0/104"} {
		e := productionEnv()
		e["TRUSTED_PROXIES"] = ok
		_, err := Load(mapEnv(e), "")
		require.NoError(t, err, ok)
	}
}

// The start-up log prints the configuration once. A URL may carry its secret in the query (pgx reads
// password=... there; a list URL may carry an access token): every query value but a few plain connection
// settings is masked, like the password of the user part.
func TestRedactedHidesURLQuerySecrets(t *testing.T) {
	t.Parallel()
	e := productionEnv()
	e["DATABASE_URL"] = "postgres://app@db.internal:5432/fabrica?sslmode=require&password=hunter2-in-the-query"
	e["EMAIL_DRIVER"] = "smtp"
	e["SMTP_URL"] = "smtps://mailer:smtp-user-password@smtp.example.com:465?auth_token=smtp-query-token#frag-secret"
	e["DISPOSABLE_DOMAINS_URL"] = "https://lists.example.com/domains.txt?access_token=list-query-token"
	c, err := Load(mapEnv(e), "")
	require.NoError(t, err)
	out := fmt.Sprint(c.Redacted())
	for _, secret := range []string{"hunter2-in-the-query", "smtp-user-password", "smtp-query-token", "frag-secret", "list-query-token"} {
		require.NotContains(t, out, secret)
	}
	require.Contains(t, out, "postgres://app@db.internal:5432/fabrica?password=xxxxx&sslmode=require",
		"where it points stays readable")
	require.Contains(t, out, "https://lists.example.com/domains.txt?access_token=xxxxx")
}

// Development's secrets and dev-token sessions are public, so by default a development server listens on
// 127.0.0.1 only, where nobody else on the network can use them; an explicit HOST opens it. Every other
// environment listens on every interface as before (a container behind a PaaS proxy must).
func TestDevelopmentListensOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	listen := func(env map[string]string) string {
		t.Helper()
		c, err := Load(mapEnv(env), "")
		require.NoError(t, err)
		return c.ListenAddr()
	}
	dev := map[string]string{"APP_ENV": EnvDevelopment, "DATABASE_URL": "postgres://x@localhost/db"}
	require.Equal(t, "127.0.0.1:8080", listen(dev))
	dev["HOST"], dev["PORT"] = "0.0.0.0", "9000"
	require.Equal(t, "0.0.0.0:9000", listen(dev), "an explicit HOST opens it")

	prod := productionEnv()
	require.Equal(t, ":8080", listen(prod), "production: every interface, as before")
	prod["HOST"] = "::"
	require.Equal(t, "[::]:8080", listen(prod))
}

// The disposable-domains list screens every sign-up: it is fetched over HTTPS only, so nobody on the path
// can rewrite it. A plain-HTTP DISPOSABLE_DOMAINS_URL is refused at start, naming the variable.
func TestDisposableDomainsURLMustBeHTTPS(t *testing.T) {
	t.Parallel()
	for _, env := range []map[string]string{productionEnv(), {"APP_ENV": EnvDevelopment, "DATABASE_URL": "postgres://x@localhost/db"}} {
		e := maps.Clone(env)
		e["DISPOSABLE_DOMAINS_URL"] = "http://lists.example.com/domains.txt"
		_, err := Load(mapEnv(e), "")
		requireField(t, err, "DISPOSABLE_DOMAINS_URL")
		e["DISPOSABLE_DOMAINS_URL"] = "https://lists.example.com/domains.txt"
		_, err = Load(mapEnv(e), "")
		require.NoError(t, err)
	}
}
