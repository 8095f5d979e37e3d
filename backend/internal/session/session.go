// Package session verifies Clerk session tokens (short-lived RS256 JWTs sent as "Authorization: Bearer …") and
// turns them into the few claims our handlers need. It works on context.Context and plain strings so that only
// httpapi has to know about Echo. Keys come either from CLERK_JWT_KEY (no network at all) or from Clerk's Backend
// API JWKS, cached per Verifier.
package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/clerk/clerk-sdk-go/v2"
	"github.com/clerk/clerk-sdk-go/v2/jwks"

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
)

var (
	// ErrMissingToken means the request carried no bearer token at all.
	ErrMissingToken = errors.New("missing bearer token")
	// ErrInvalidToken means a token was present but is not an acceptable session: bad signature, expired, wrong
	// issuer or azp, no sid (not a session token), malformed, unknown kid... The wrapping error carries a short
	// reason, never the token.
	ErrInvalidToken = errors.New("invalid session token")
	// ErrUnconfigured means neither a JWT key nor a secret key was configured (development without Clerk).
	ErrUnconfigured = errors.New("session verification is not configured")
	// ErrKeysUnavailable means Clerk's JWKS could not be fetched, so the token could not be checked either way.
	// It is an outage on our side (503), not the client's fault (401).
	ErrKeysUnavailable = errors.New("session signing keys unavailable")
)

// DefaultAPIURL is Clerk's Backend API base; the JWKS lives at DefaultAPIURL + "/jwks".
const DefaultAPIURL = "https://api.clerk.com/v1"

const (
	defaultLeeway = 5 * time.Second
	// Clerk session tokens are cookie-sized (a few hundred bytes to ~4 KiB); anything far larger is junk that
	// we refuse before spending RSA work or allocations on it.
	maxTokenLen = 16 << 10
)

// Config configures a Verifier. With neither key set, New returns a Verifier that answers ErrUnconfigured.
type Config struct {
	// SecretKey (CLERK_SECRET_KEY) authenticates the JWKS fetch from {APIURL}/jwks; keys are cached for an hour,
	// and while Clerk cannot be reached the last fetched keys keep verifying for 24 hours more.
	SecretKey string
	// JWTKey (CLERK_JWT_KEY) is the instance's PEM public key, or Clerk's bare one-line form. It takes
	// precedence over SecretKey and makes verification entirely networkless.
	JWTKey string
	// APIURL is Clerk's Backend API base, DefaultAPIURL when empty. Tests point it at a fake.
	APIURL string
	// AuthorizedParties, when non-empty, is the allow-list for the azp claim; a token whose azp is empty or not
	// listed is rejected. When empty, any azp (including none) is accepted.
	AuthorizedParties []string
	// Leeway is the clock skew allowed on exp, nbf and iat; 5s when zero.
	Leeway time.Duration
	// Now is the clock (app's; the system clock when nil).
	Now func() time.Time
	// Log hears about failed JWKS fetches (at warn, never with a token); nil discards.
	Log *slog.Logger
	// Observer, when set, counts JWKS fetches for metrics.
	Observer Observer
}

// Claims is what handlers need from a verified session.
type Claims struct {
	UserID    string // sub: the Clerk user id
	SessionID string // sid, always set on a verified token
	Email     string // custom "email" claim (session token customization), "" when absent
	// EmailVerified is the custom "email_verified" claim: Clerk vouches that Email is verified.
	EmailVerified bool
	AuthTime      *time.Time // auth_time: when the user actually signed in, nil when absent
	IssuedAt      *time.Time // iat, nil when absent
	ExpiresAt     *time.Time // exp, always set on a verified token
}

// Verifier checks Clerk session tokens. It is safe for concurrent use; build one at startup and share it, since
// its JWKS cache and refetch limiter live in it.
type Verifier struct {
	staticKey *clerk.JSONWebKey // from JWTKey: no network
	keys      *keySet           // from SecretKey: cached JWKS
	leeway    time.Duration
	now       func() time.Time
	parties   map[string]bool
}

// New builds a Verifier from cfg. It fails only on a broken configuration (unparsable JWTKey, bad APIURL,
// negative Leeway); no key at all is not an error but a Verifier that always returns ErrUnconfigured.
func New(cfg Config) (*Verifier, error) {
	if cfg.Leeway < 0 {
		return nil, errors.New("session config: leeway must not be negative")
	}
	v := &Verifier{leeway: cfg.Leeway, now: cfg.Now}
	if v.leeway == 0 {
		v.leeway = defaultLeeway
	}
	v.now = clock.Or(v.now)
	if len(cfg.AuthorizedParties) > 0 {
		v.parties = make(map[string]bool, len(cfg.AuthorizedParties))
		for _, p := range cfg.AuthorizedParties {
			v.parties[p] = true
		}
	}
	jwtKey, secretKey := strings.TrimSpace(cfg.JWTKey), strings.TrimSpace(cfg.SecretKey)
	switch {
	case jwtKey != "":
		key, err := parseJWTKey(jwtKey)
		if err != nil {
			return nil, fmt.Errorf("session config: jwt key: %w", err)
		}
		v.staticKey = key
	case secretKey != "":
		apiURL := strings.TrimSpace(cfg.APIURL)
		if apiURL == "" {
			apiURL = DefaultAPIURL
		}
		if u, err := url.Parse(apiURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("session config: api url %q is not an http(s) URL", apiURL)
		}
		client := jwks.NewClient(&clerk.ClientConfig{BackendConfig: clerk.BackendConfig{
			URL: &apiURL,
			Key: &secretKey,
			// Our own client rather than the SDK's package-global default; the timeout bounds how long
			// concurrent requests wait on one JWKS fetch.
			HTTPClient: &http.Client{Timeout: 5 * time.Second},
		}})
		log := cfg.Log
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		v.keys = newKeySet(client, v.now, log, cfg.Observer)
	}
	return v, nil
}

// Verify checks one raw token (without the "Bearer " prefix) and returns its claims. Errors wrap one of
// ErrUnconfigured, ErrMissingToken, ErrInvalidToken or ErrKeysUnavailable.
func (v *Verifier) Verify(ctx context.Context, token string) (Claims, error) {
	if v.staticKey == nil && v.keys == nil {
		return Claims{}, ErrUnconfigured
	}
	if token == "" {
		return Claims{}, ErrMissingToken
	}
	return v.verify(ctx, token)
}

// FromHeader extracts the bearer token from an Authorization header value and verifies it. An empty header, a
// bare "Bearer" or another scheme ("Basic …") is ErrMissingToken.
func (v *Verifier) FromHeader(ctx context.Context, authorization string) (Claims, error) {
	if v.staticKey == nil && v.keys == nil {
		return Claims{}, ErrUnconfigured
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(authorization), " ")
	// The auth scheme is case-insensitive (RFC 9110 §11.1).
	if !strings.EqualFold(scheme, "Bearer") {
		return Claims{}, ErrMissingToken
	}
	return v.Verify(ctx, strings.TrimSpace(token))
}

// invalid wraps ErrInvalidToken with a short reason and, when there is one, the underlying error (which never
// contains the token itself).
func invalid(reason string, err error) error {
	if err == nil {
		return fmt.Errorf("%w: %s", ErrInvalidToken, reason)
	}
	return fmt.Errorf("%w: %s: %w", ErrInvalidToken, reason, err)
}
