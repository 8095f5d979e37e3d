package session_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/session"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

const app = "https://app.fabrica.test"

// mint returns a valid token for the table's verifier (user, session, azp set) after applying change.
func mint(t *testing.T, e env, change func(*sessiontest.TokenClaims)) string {
	c := sessiontest.TokenClaims{UserID: "user_1", SessionID: "sess_1", AuthorizedParty: app}
	if change != nil {
		change(&c)
	}
	return e.token(t, c)
}

func TestVerify_Rejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		token      func(t *testing.T, e env, other *sessiontest.Issuer) string
		wantReason string // "" = any reason
	}{
		{"expired", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			return mint(t, e, func(c *sessiontest.TokenClaims) { c.IssuedAt = t0.Add(-2 * time.Minute) })
		}, "expired"},
		{"not yet valid", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			return mint(t, e, func(c *sessiontest.TokenClaims) { c.IssuedAt = t0.Add(time.Minute) })
		}, "not yet valid"},
		{"signed by another key under our kid", func(t *testing.T, e env, other *sessiontest.Issuer) string {
			return other.Token(t, sessiontest.TokenClaims{UserID: "user_1", AuthorizedParty: app, IssuedAt: t0, KeyID: e.iss.KeyID()})
		}, "bad signature"},
		{"payload swapped after signing", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			parts := strings.Split(mint(t, e, nil), ".")
			forged := validClaims()
			forged["sub"], forged["azp"] = "user_admin", app
			body, err := json.Marshal(forged)
			require.NoError(t, err)
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString(body) + "." + parts[2]
		}, "bad signature"},
		{"wrong issuer", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			return mint(t, e, func(c *sessiontest.TokenClaims) { c.Issuer = "https://evil.example" })
		}, "invalid issuer"},
		{"missing exp", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			return mint(t, e, func(c *sessiontest.TokenClaims) { c.OmitExp = true })
		}, "missing exp"},
		{"missing sub", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			return mint(t, e, func(c *sessiontest.TokenClaims) { c.UserID = "" })
		}, "missing sub"},
		{"azp not in allow-list", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			return mint(t, e, func(c *sessiontest.TokenClaims) { c.AuthorizedParty = "https://evil.example" })
		}, "invalid authorized party"},
		{"empty azp with allow-list", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			return mint(t, e, func(c *sessiontest.TokenClaims) { c.AuthorizedParty = "" })
		}, "invalid authorized party"},
		{"alg none", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			return rawToken(t, map[string]any{"alg": "none", "kid": e.iss.KeyID()}, withAZP(validClaims()), nil)
		}, ""},
		{"HS256 keyed with the public key", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			unsigned := rawToken(t, map[string]any{"alg": "HS256", "kid": e.iss.KeyID()}, withAZP(validClaims()), nil)
			mac := hmac.New(sha256.New, []byte(e.iss.PublicKeyPEM()))
			mac.Write([]byte(strings.TrimSuffix(unsigned, ".")))
			return unsigned + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
		}, "invalid signing algorithm"},
		{"valid token plus a dot", func(t *testing.T, e env, _ *sessiontest.Issuer) string { return mint(t, e, nil) + "." }, "malformed"},
		{"space inside", func(t *testing.T, e env, _ *sessiontest.Issuer) string {
			tok := mint(t, e, nil)
			return tok[:20] + " " + tok[20:]
		}, "malformed"},
		{"JSON serialization", func(*testing.T, env, *sessiontest.Issuer) string {
			return `{"payload":"e30","protected":"e30","signature":"AA"}`
		}, "malformed"},
		{"oversized", func(*testing.T, env, *sessiontest.Issuer) string {
			return "a." + strings.Repeat("b", 20<<10) + ".c"
		}, "too large"},
		{"one word", func(*testing.T, env, *sessiontest.Issuer) string { return "garbage" }, "malformed"},
		{"three junk parts", func(*testing.T, env, *sessiontest.Issuer) string { return "a.b.c" }, "malformed"},
		{"dots only", func(*testing.T, env, *sessiontest.Issuer) string { return ".." }, "malformed"},
	}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			e := setup(t, mode, session.Config{AuthorizedParties: []string{app}})
			other := sessiontest.NewIssuer(t)
			_, err := e.v.Verify(context.Background(), mint(t, e, nil))
			require.NoError(t, err, "the baseline token must pass, or the table proves nothing")

			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tok := tt.token(t, e, other)
					_, err := e.v.Verify(context.Background(), tok)
					require.ErrorIs(t, err, session.ErrInvalidToken)
					require.ErrorContains(t, err, tt.wantReason)
					require.NotContains(t, err.Error(), tok, "errors must never carry the token")
				})
			}
		})
	}
}

func withAZP(claims map[string]any) map[string]any {
	claims["azp"] = app
	return claims
}
