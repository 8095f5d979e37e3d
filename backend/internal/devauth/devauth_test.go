package devauth_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/session"
)

func TestKeyIsCreatedOnceAndTokensVerify(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ".data", "dev-session-key.pem")
	var wg sync.WaitGroup
	keys := make([]string, 8)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := devauth.LoadOrCreateKey(path)
			require.NoError(t, err)
			keys[i] = devauth.PublicKeyPEM(k)
		}()
	}
	wg.Wait()
	for _, k := range keys {
		require.Equal(t, keys[0], k, "concurrent first uses agree on one key")
	}
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	k, err := devauth.LoadOrCreateKey(path)
	require.NoError(t, err)
	tok, err := devauth.Token(k, devauth.Claims{UserID: "user_dev", Email: "dev@fabrica.test", TTL: time.Hour}, time.Now())
	require.NoError(t, err)
	v, err := session.New(session.Config{JWTKey: devauth.PublicKeyPEM(k)})
	require.NoError(t, err)
	c, err := v.Verify(context.Background(), tok)
	require.NoError(t, err)
	require.Equal(t, "user_dev", c.UserID)
	require.True(t, c.EmailVerified)
	require.NotNil(t, c.AuthTime)
}
