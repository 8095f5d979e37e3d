package main

import (
	"os"
	"path/filepath"
	"strings"
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
