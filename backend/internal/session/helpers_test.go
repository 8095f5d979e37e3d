package session_test

import (
	"encoding/base64"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/session"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

// t0 is "now" for every verifier built by setup; tokens default to being issued at t0.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeClock is a concurrency-safe settable clock.
type fakeClock struct{ ns atomic.Int64 }

func newClock(t time.Time) *fakeClock {
	c := &fakeClock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// keyMode is where the verifier gets its key from.
type keyMode string

const (
	pemMode  keyMode = "pem"  // Config.JWTKey
	jwksMode keyMode = "jwks" // Config.SecretKey + fake Backend API
)

var modes = []keyMode{pemMode, jwksMode}

type env struct {
	iss      *sessiontest.Issuer
	clock    *fakeClock
	v        *session.Verifier
	jwks     *sessiontest.JWKS // the fake Backend API in jwksMode, nil in pemMode
	requests func() int        // JWKS requests served; always 0 in pemMode
}

// setup builds a Verifier on a fresh Issuer, with cfg's key fields filled in for mode and its clock at t0.
func setup(t *testing.T, mode keyMode, cfg session.Config) env {
	t.Helper()
	e := env{iss: sessiontest.NewIssuer(t), clock: newClock(t0), requests: func() int { return 0 }}
	cfg.Now = e.clock.Now
	switch mode {
	case pemMode:
		cfg.JWTKey = e.iss.PublicKeyPEM()
	case jwksMode:
		cfg.SecretKey = sessiontest.TestSecretKey
		e.jwks = e.iss.JWKS(t)
		cfg.APIURL, e.requests = e.jwks.URL, e.jwks.Requests
	}
	v, err := session.New(cfg)
	require.NoError(t, err)
	e.v = v
	return e
}

// token mints a token from e's Issuer, issued at t0 unless c says otherwise.
func (e env) token(t *testing.T, c sessiontest.TokenClaims) string {
	t.Helper()
	if c.IssuedAt.IsZero() {
		c.IssuedAt = t0
	}
	return e.iss.Token(t, c)
}

// rawToken assembles a compact JWS by hand, for tokens no honest signer would produce.
func rawToken(t *testing.T, header, claims map[string]any, sig []byte) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(header) + "." + enc(claims) + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// validClaims is a complete, valid claim set for rawToken, issued at t0.
func validClaims() map[string]any {
	return map[string]any{
		"iss": sessiontest.DefaultIssuer, "sub": "user_raw", "sid": "sess_raw",
		"iat": t0.Unix(), "nbf": t0.Unix(), "exp": t0.Add(time.Minute).Unix(),
	}
}
