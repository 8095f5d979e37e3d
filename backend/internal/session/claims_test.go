package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/session"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

// The hole "a token without sid, or for any origin" (docs/security.md): a JWT-template token (getToken({template})) is
// signed by the same instance key with the same iss and sub, but it is not a session: no sid, a lifetime the template
// chooses. It must not authenticate a request.
func TestTokenWithoutSIDIsNotASession(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			e := setup(t, mode, session.Config{})
			template := e.token(t, sessiontest.TokenClaims{UserID: "user_1", OmitSID: true, TTL: time.Hour})

			_, err := e.v.Verify(context.Background(), template)
			require.ErrorIs(t, err, session.ErrInvalidToken)
			require.ErrorContains(t, err, "missing sid")

			got, err := e.v.Verify(context.Background(), e.token(t, sessiontest.TokenClaims{UserID: "user_1", SessionID: "sess_1"}))
			require.NoError(t, err)
			require.Equal(t, "sess_1", got.SessionID)
		})
	}
}
