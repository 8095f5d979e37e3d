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
