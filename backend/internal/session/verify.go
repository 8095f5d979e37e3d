package session

import (
	"context"
	"crypto/rsa"
	"errors"
	"strings"
	"time"

	"github.com/clerk/clerk-sdk-go/v2"
	"github.com/clerk/clerk-sdk-go/v2/jwt"
	"github.com/go-jose/go-jose/v3"
	josejwt "github.com/go-jose/go-jose/v3/jwt"
)

// customClaims are the claims outside clerk.SessionClaims that we read. email and email_verified only exist
// when the Clerk instance's session token is customised to carry them ({{user.primary_email_address}} and
// {{user.email_verified}}); auth_time is emitted by Clerk itself.
type customClaims struct {
	Email         string               `json:"email"`
	EmailVerified flexBool             `json:"email_verified"`
	AuthTime      *josejwt.NumericDate `json:"auth_time"`
}

// flexBool reads a JSON boolean, or the strings "true"/"false" (a shortcode quoted in the Dashboard's claims
// editor may arrive either way). Anything else is false: an unreadable claim never verifies an email.
type flexBool bool

func (b *flexBool) UnmarshalJSON(data []byte) error {
	s := strings.Trim(string(data), `"`)
	*b = flexBool(s == "true")
	return nil
}

// clockFunc adapts a time source to clerk.Clock.
type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

func (v *Verifier) verify(ctx context.Context, token string) (Claims, error) {
	if len(token) > maxTokenLen {
		return Claims{}, invalid("too large", nil)
	}
	// go-jose also accepts the JWS JSON serialization and strips whitespace inside the token; Clerk only
	// issues compact tokens, so anything else is refused before the parser sees it.
	if strings.Count(token, ".") != 2 || strings.ContainsAny(token, " \t\r\n{") {
		return Claims{}, invalid("malformed", nil)
	}
	// Decode verifies nothing; it only yields the kid. Its errors are dropped because they may quote bytes of
	// the token.
	decoded, err := jwt.Decode(ctx, &jwt.DecodeParams{Token: token})
	if err != nil {
		return Claims{}, invalid("malformed", nil)
	}
	key := v.staticKey
	if key == nil {
		if decoded.KeyID == "" {
			return Claims{}, invalid("missing kid", nil)
		}
		if key, err = v.keys.get(ctx, decoded.KeyID); err != nil {
			return Claims{}, err
		}
	}

	custom := &customClaims{}
	params := &jwt.VerifyParams{
		Token:                   token,
		JWK:                     key, // always set: jwt.Verify would otherwise fetch the JWKS on every call
		Leeway:                  v.leeway,
		Clock:                   clockFunc(v.now),
		CustomClaimsConstructor: func(context.Context) any { return custom },
	}
	if v.parties != nil {
		// Not clerkhttp.AuthorizedPartyMatches: that one lets a token without azp through even when a list is
		// configured.
		params.AuthorizedPartyHandler = func(azp string) bool { return v.parties[azp] }
	}
	sc, err := jwt.Verify(ctx, params)
	if err != nil {
		return Claims{}, invalid(rejection(err), err)
	}
	// go-jose treats exp as optional; a session token without one would never expire. Real Clerk tokens always
	// carry exp, so its absence means the token is not one of them.
	if sc.Expiry == nil {
		return Claims{}, invalid("missing exp", nil)
	}
	if sc.Subject == "" {
		return Claims{}, invalid("missing sub", nil)
	}
	// A JWT-template token (getToken({template})) is signed by the same instance key with the same iss and sub,
	// so only sid tells a session apart: templates carry none, and their lifetime is whatever the template says.
	if sc.SessionID == "" {
		return Claims{}, invalid("missing sid", nil)
	}
	return toClaims(sc, custom), nil
}

// rejection names the reason jwt.Verify refused a token, for logs and tests.
func rejection(err error) string {
	switch {
	case errors.Is(err, josejwt.ErrExpired):
		return "expired"
	case errors.Is(err, josejwt.ErrNotValidYet):
		return "not yet valid"
	case errors.Is(err, josejwt.ErrIssuedInTheFuture):
		return "issued in the future"
	case errors.Is(err, jose.ErrCryptoFailure):
		return "bad signature"
	default:
		// Issuer, azp and alg mismatches are plain fmt errors in the SDK; the wrapped error says which.
		return "rejected"
	}
}

func toClaims(sc *clerk.SessionClaims, custom *customClaims) Claims {
	c := Claims{
		UserID:    sc.Subject,
		SessionID: sc.SessionID,
		Email:     custom.Email,
		// Only a verified claim vouches for the address; without it the email is a hint, never an identity.
		EmailVerified: bool(custom.EmailVerified) && custom.Email != "",
		IssuedAt:      unixTime(sc.IssuedAt),
		ExpiresAt:     unixTime(sc.Expiry),
	}
	if custom.AuthTime != nil {
		t := custom.AuthTime.Time().UTC()
		c.AuthTime = &t
	}
	return c
}

func unixTime(sec *int64) *time.Time {
	if sec == nil {
		return nil
	}
	t := time.Unix(*sec, 0).UTC()
	return &t
}

// parseJWTKey turns CLERK_JWT_KEY into an RS256 key: a PKIX "PUBLIC KEY" PEM, or the Dashboard's bare one-line
// form (the same base64 without the armour).
func parseJWTKey(raw string) (*clerk.JSONWebKey, error) {
	// Env files and PaaS dashboards often keep a PEM on one line with literal "\n" sequences.
	raw = strings.ReplaceAll(raw, `\n`, "\n")
	if !strings.HasPrefix(raw, "-----BEGIN") {
		raw = "-----BEGIN PUBLIC KEY-----\n" + raw + "\n-----END PUBLIC KEY-----"
	}
	key, err := clerk.JSONWebKeyFromPEM(raw)
	if err != nil {
		return nil, err
	}
	// JSONWebKeyFromPEM labels any PKIX key RS256; an EC or Ed25519 key would only fail later, token by token.
	if _, ok := key.Key.(*rsa.PublicKey); !ok {
		return nil, errors.New("not an RSA public key")
	}
	return key, nil
}
