package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDevTokenPrintsOnlyTheToken(t *testing.T) {
	t.Parallel()
	key := filepath.Join(t.TempDir(), "dev-session-key.pem")
	out, _, err := runWith(t, map[string]string{"DEV_SESSION_KEY_FILE": key}, "dev", "token", "--admin", "--ttl", "10m")
	require.NoError(t, err)
	tok := strings.TrimSpace(out)
	require.Equal(t, tok+"\n", out, "the token alone on stdout")
	require.Equal(t, 2, strings.Count(tok, "."), "a compact JWT")

	_, _, err = runWith(t, map[string]string{"DEV_SESSION_KEY_FILE": key, "APP_ENV": "staging"}, "dev", "token")
	require.Error(t, err, "never outside development")
}

// fabrica seed writes demo users through dev sessions: outside development it refuses before it signs or
// sends anything (the URL is one nothing listens on). Staging and production without their secrets are
// refused by the configuration already; test is refused by seed itself.
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
