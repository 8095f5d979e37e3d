package main

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDevTokenPrintsOnlyTheToken(t *testing.T) {
	t.Parallel()
	key := filepath.Join(t.TempDir(), "dev-session-key.pem")
	out, _, err := runWith(t, map[string]string{"DEV_SESSION_KEY_FILE": key, "APP_ENV": "development"}, "dev", "token", "--admin", "--ttl", "10m")
	require.NoError(t, err)
	tok := strings.TrimSpace(out)
	require.Equal(t, tok+"\n", out, "the token alone on stdout")
	require.Equal(t, 2, strings.Count(tok, "."), "a compact JWT")

	_, _, err = runWith(t, map[string]string{"DEV_SESSION_KEY_FILE": key, "APP_ENV": "staging"}, "dev", "token")
	require.Error(t, err, "never outside development")
}

// A development tool run where the process environment does not say APP_ENV=development refuses, naming
// the variable: an unset APP_ENV is production for the tools as for the server, and a .env file that says
// development (a copied .env.example) is not read for it.
func TestDevToolsNeedDevelopmentInTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir) // the tools read ./.env
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".env"), []byte("APP_ENV=development\n"), 0o600))
	key := filepath.Join(dir, "dev-session-key.pem")
	_, _, err := runWith(t, map[string]string{"DEV_SESSION_KEY_FILE": key}, "dev", "token")
	require.ErrorContains(t, err, "set APP_ENV=development (APP_ENV is unset, which is production)")
	require.NoFileExists(t, key)
}

// fabrica seed writes demo users through dev sessions: outside development it refuses before it signs or
// sends anything (the URL is one nothing listens on), and before it loads the configuration.
func TestSeedIsDevelopmentOnly(t *testing.T) {
	t.Parallel()
	key := filepath.Join(t.TempDir(), "dev-session-key.pem")
	for _, env := range []string{"production", "staging", "test"} {
		_, _, err := runWith(t, map[string]string{"DEV_SESSION_KEY_FILE": key, "APP_ENV": env}, "seed", "--url", "http://127.0.0.1:1")
		require.Error(t, err, env)
	}
	_, _, err := runWith(t, map[string]string{"DEV_SESSION_KEY_FILE": key, "APP_ENV": "test"}, "seed", "--url", "http://127.0.0.1:1")
	require.ErrorContains(t, err, "only in development")
	require.NoFileExists(t, key, "the dev key is never created outside development")
}

// fabrica trigger signs sample webhooks with the configured secrets. With a deployment's real secrets (all
// set, so its configuration loads) it would forge deliveries that deployment accepts: outside development it
// refuses before it signs or sends anything, so the server here receives nothing.
func TestTriggerRefusesToForgeWebhooksOutsideDevelopment(t *testing.T) {
	t.Parallel()
	var received atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost { // a delivery; the GET is trigger asking the server's clock
			received.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	secrets := map[string]string{
		"DATABASE_URL":             "postgres://app@db.internal/fabrica",
		"PADDLE_WEBHOOK_SECRET":    "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI",
		"CLERK_WEBHOOK_SECRET":     "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"CLERK_SECRET_KEY":         "sk_live_abcdefghijklmnopqrstuvwxyz",
		"CLERK_AUTHORIZED_PARTIES": "https://app.example.com",
		"PADDLE_API_KEY":           "pdl_live_apikey_01abcdefghijklmnopqrstuvwx",
		"CHECKOUT_SIGNING_SECRET":  strings.Repeat("c", 32),
		"EMAIL_UNSUBSCRIBE_SECRET": strings.Repeat("u", 32),
		"ERASURE_TOMBSTONE_KEY":    strings.Repeat("e", 32),
		"EMAIL_DRIVER":             "resend",
		"RESEND_API_KEY":           "re_live_123456",
		"PUBLIC_BASE_URL":          "https://api.example.com",
		"METRICS_TOKEN":            strings.Repeat("m", 32),
		"COMPANY_LEGAL_NAME":       "Example Software GmbH",
	}
	for _, appEnv := range []string{"production", "staging", "test", ""} {
		env := maps.Clone(secrets)
		env["APP_ENV"] = appEnv
		_, _, err := runWith(t, env, "trigger", "paddle", "subscription.created", "--url", srv.URL)
		require.ErrorContains(t, err, "trigger: only in development: set APP_ENV=development", "APP_ENV=%q", appEnv)
	}
	require.Zero(t, received.Load(), "nothing was signed and sent")

	env := maps.Clone(secrets)
	env["APP_ENV"] = "development"
	_, _, err := runWith(t, env, "trigger", "clerk", "user.created", "--url", srv.URL)
	require.NoError(t, err, "development still sends")
	require.EqualValues(t, 1, received.Load())
}

// fabrica dev clock shows the development server's clock, and a move posts to it as the dev admin, with
// a token issued at the server's (moved) time; outside development it refuses before it asks anything.
func TestDevClockFollowsTheServer(t *testing.T) {
	t.Parallel()
	var moved atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			moved.Store(r.Header.Get("Authorization") != "")
			_, _ = w.Write([]byte(`{"now":"2030-03-01T00:00:00Z","moved":true,"offset_seconds":1e8,` +
				`"tasks":[{"name":"monthly-grants","report":{"grants":2,"credits":2000}}]}`))
			return
		}
		_, _ = w.Write([]byte(`{"now":"2030-03-01T00:00:00Z","moved":true,"offset_seconds":1e8}`))
	}))
	defer srv.Close()
	env := map[string]string{"APP_ENV": "development", "DEV_SESSION_KEY_FILE": filepath.Join(t.TempDir(), "key.pem")}
	out, _, err := runWith(t, env, "dev", "clock", "--url", srv.URL)
	require.NoError(t, err)
	require.Contains(t, out, "moved +1157d")
	out, _, err = runWith(t, env, "dev", "clock", "set", "2030-03-01T00:00:00Z", "--url", srv.URL)
	require.NoError(t, err)
	require.Contains(t, out, "2030-03-01T00:00:00Z")
	require.Contains(t, out, "ran monthly-grants: credits=2000 grants=2")
	require.Equal(t, true, moved.Load())

	env["APP_ENV"] = "staging"
	_, _, err = runWith(t, env, "dev", "clock", "reset", "--url", srv.URL)
	require.ErrorContains(t, err, "only in development")
}
