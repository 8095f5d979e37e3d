package session_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/session"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

func TestVerify_ExtractsClaims(t *testing.T) {
	t.Parallel()
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			e := setup(t, mode, session.Config{})
			signedIn := t0.Add(-3 * time.Hour)
			tok := e.token(t, sessiontest.TokenClaims{
				UserID: "user_1", SessionID: "sess_1", Email: "ada@example.com", AuthTime: signedIn,
			})

			got, err := e.v.Verify(context.Background(), tok)
			require.NoError(t, err)
			require.Equal(t, "user_1", got.UserID)
			require.Equal(t, "sess_1", got.SessionID)
			require.Equal(t, "ada@example.com", got.Email)
			require.NotNil(t, got.AuthTime)
			require.True(t, got.AuthTime.Equal(signedIn))
			require.True(t, got.IssuedAt.Equal(t0))
			require.True(t, got.ExpiresAt.Equal(t0.Add(time.Minute)))
		})
	}
}

func TestVerify_OptionalClaimsAbsent(t *testing.T) {
	t.Parallel()
	e := setup(t, pemMode, session.Config{})

	got, err := e.v.Verify(context.Background(), e.token(t, sessiontest.TokenClaims{UserID: "user_1"}))
	require.NoError(t, err)
	require.Equal(t, "user_1", got.UserID)
	require.Empty(t, got.Email)
	require.Nil(t, got.AuthTime)
	require.NotNil(t, got.IssuedAt)
	require.NotNil(t, got.ExpiresAt)
}

func TestNew_JWTKeyForms(t *testing.T) {
	t.Parallel()
	iss := sessiontest.NewIssuer(t)
	armoured := iss.PublicKeyPEM()
	var bare []string // the Dashboard's form: the base64 body on one line, without the armour
	for _, line := range strings.Split(strings.TrimSpace(armoured), "\n") {
		if !strings.HasPrefix(line, "-----") {
			bare = append(bare, line)
		}
	}
	forms := map[string]string{
		"pem":             armoured,
		"bare one-liner":  strings.Join(bare, ""),
		"escaped newline": strings.ReplaceAll(armoured, "\n", `\n`),
	}
	for name, key := range forms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := session.New(session.Config{JWTKey: key})
			require.NoError(t, err)
			_, err = v.Verify(context.Background(), iss.Token(t, sessiontest.TokenClaims{UserID: "user_1"}))
			require.NoError(t, err)
		})
	}
}

func TestVerify_JWTKeyTakesPrecedence(t *testing.T) {
	t.Parallel()
	iss := sessiontest.NewIssuer(t)
	apiURL, requests := iss.JWKSServer(t)
	v, err := session.New(session.Config{JWTKey: iss.PublicKeyPEM(), SecretKey: sessiontest.TestSecretKey, APIURL: apiURL})
	require.NoError(t, err)

	_, err = v.Verify(context.Background(), iss.Token(t, sessiontest.TokenClaims{UserID: "user_1"}))
	require.NoError(t, err)
	require.Zero(t, requests(), "a configured JWT key must mean no network at all")
}

func TestVerify_Leeway(t *testing.T) {
	t.Parallel()
	e := setup(t, pemMode, session.Config{})
	tok := e.token(t, sessiontest.TokenClaims{UserID: "user_1"}) // exp = t0+60s

	e.clock.Advance(63 * time.Second)
	_, err := e.v.Verify(context.Background(), tok)
	require.NoError(t, err, "3s past exp is within the default 5s leeway")

	e.clock.Advance(5 * time.Second)
	_, err = e.v.Verify(context.Background(), tok)
	require.ErrorIs(t, err, session.ErrInvalidToken)
	require.ErrorContains(t, err, "expired")
}

func TestVerify_AuthorizedParties(t *testing.T) {
	t.Parallel()
	const app = "https://app.fabrica.test"
	open := setup(t, pemMode, session.Config{})
	listed := setup(t, pemMode, session.Config{AuthorizedParties: []string{app}})
	ctx := context.Background()

	for _, azp := range []string{"", app, "https://other.example"} {
		_, err := open.v.Verify(ctx, open.token(t, sessiontest.TokenClaims{UserID: "u", AuthorizedParty: azp}))
		require.NoError(t, err, "no allow-list accepts azp %q", azp)
	}
	_, err := listed.v.Verify(ctx, listed.token(t, sessiontest.TokenClaims{UserID: "u", AuthorizedParty: app}))
	require.NoError(t, err)
	// Rejection of unlisted and empty azp is covered by TestVerify_Rejects.
}

func TestFromHeader(t *testing.T) {
	t.Parallel()
	e := setup(t, pemMode, session.Config{})
	tok := e.token(t, sessiontest.TokenClaims{UserID: "user_1"})
	tests := []struct {
		name, header string
		wantErr      error
	}{
		{"bearer", "Bearer " + tok, nil},
		{"lower-case scheme and padding", "  bearer   " + tok + " ", nil},
		{"empty", "", session.ErrMissingToken},
		{"blank", "   ", session.ErrMissingToken},
		{"scheme only", "Bearer", session.ErrMissingToken},
		{"scheme and space", "Bearer ", session.ErrMissingToken},
		{"basic", "Basic dXNlcjpwYXNz", session.ErrMissingToken},
		{"token without scheme", tok, session.ErrMissingToken},
		{"bearer garbage", "Bearer not-a-jwt", session.ErrInvalidToken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := e.v.FromHeader(context.Background(), tt.header)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "user_1", got.UserID)
		})
	}
}

func TestUnconfigured(t *testing.T) {
	t.Parallel()
	v, err := session.New(session.Config{APIURL: "https://api.clerk.test/v1"})
	require.NoError(t, err, "running without Clerk is allowed")
	tok := sessiontest.NewIssuer(t).Token(t, sessiontest.TokenClaims{UserID: "user_1"})

	_, err = v.Verify(context.Background(), tok)
	require.ErrorIs(t, err, session.ErrUnconfigured)
	_, err = v.FromHeader(context.Background(), "Bearer "+tok)
	require.ErrorIs(t, err, session.ErrUnconfigured)
	_, err = v.FromHeader(context.Background(), "")
	require.ErrorIs(t, err, session.ErrUnconfigured)
}

func TestNew_InvalidConfig(t *testing.T) {
	t.Parallel()
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	require.NoError(t, err)
	tests := map[string]session.Config{
		"garbage jwt key":     {JWTKey: "not a key"},
		"private key pem":     {JWTKey: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"},
		"ec jwt key":          {JWTKey: string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))},
		"relative api url":    {SecretKey: "sk_test_x", APIURL: "api.clerk.com/v1"},
		"non-http api url":    {SecretKey: "sk_test_x", APIURL: "ftp://api.clerk.com/v1"},
		"negative leeway":     {JWTKey: "irrelevant", Leeway: -time.Second},
		"negative leeway jwk": {SecretKey: "sk_test_x", Leeway: -time.Second},
	}
	for name, cfg := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := session.New(cfg)
			require.Error(t, err)
		})
	}
}
