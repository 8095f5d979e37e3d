package app

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

// The hole "a token without sid, or for any origin" (docs/security.md): the verifier could check azp, but nothing
// configured it, so a session token minted for any origin of the Clerk instance (another app, a staging frontend) was
// accepted. CLERK_AUTHORIZED_PARTIES lists ours.
func TestAZPMustBeAnAuthorizedParty(t *testing.T) {
	t.Parallel()
	e := envWith(t, map[string]string{"CLERK_AUTHORIZED_PARTIES": "https://app.example.com, https://admin.example.com"})
	tests := []struct {
		name, azp  string
		wantStatus int
	}{
		{"listed origin", "https://app.example.com", http.StatusOK},
		{"second listed origin", "https://admin.example.com", http.StatusOK},
		{"another origin of the instance", "https://other-app.example.com", http.StatusUnauthorized},
		{"listed host over http", "http://app.example.com", http.StatusUnauthorized},
		{"no azp", "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		tok := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_azp", Email: "azp@example.com", AuthorizedParty: tt.azp})
		rec := e.call(t, http.MethodGet, mePath, tok, "")
		require.Equal(t, tt.wantStatus, rec.Code, "%s: %s", tt.name, rec.Body.String())
	}
}
