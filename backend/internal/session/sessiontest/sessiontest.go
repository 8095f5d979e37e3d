// Package sessiontest mints Clerk-shaped session tokens for tests, offline: an Issuer holds an RSA key pair
// and a kid, signs RS256 JWTs with it, and can serve its key as a fake Clerk Backend API JWKS. Import it from
// _test.go files only.
package sessiontest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v3"
	"github.com/go-jose/go-jose/v3/jwt"
)

// DefaultIssuer is the iss of minted tokens. It is Clerk-shaped ("https://clerk.…") because clerk-sdk-go
// rejects any other issuer.
const DefaultIssuer = "https://clerk.fabrica.test"

// TestSecretKey is the secret key the fake JWKS server expects as bearer; use it as session.Config.SecretKey.
const TestSecretKey = "sk_test_sessiontest"

// Issuer is a fake Clerk instance: an RSA key pair and its kid.
type Issuer struct {
	key *rsa.PrivateKey
	kid string
}

// TokenClaims describes a token to mint. Zero values give a valid session token for "now".
type TokenClaims struct {
	UserID, Email   string
	SessionID       string        // sid; "" = a random "sess_…" (every Clerk session token has one)
	OmitSID         bool          // leave sid out, as a JWT-template token does
	EmailVerified   bool          // email_verified: true; false = omitted
	AuthTime        time.Time     // auth_time; zero = omitted
	IssuedAt        time.Time     // iat and nbf; zero = time.Now()
	TTL             time.Duration // exp = IssuedAt + TTL; 0 = 60s (Clerk's lifetime); negative = already expired
	Issuer          string        // iss; "" = DefaultIssuer
	AuthorizedParty string        // azp; "" = omitted
	OmitExp         bool          // leave exp out
	KeyID           string        // kid header; "" = the Issuer's own
}

var unsafeKIDChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// NewIssuer returns an Issuer with a fresh 2048-bit key and a kid unique to this test (its name plus random
// bytes), so no key cache can mix up two tests' keys.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatalf("sessiontest: generate key: %v", err)
	}
	return &Issuer{key: key, kid: RandomKeyID(t)}
}

// RandomKeyID returns a kid unique to this test and call, e.g. for tokens whose kid no JWKS knows.
func RandomKeyID(t testing.TB) string {
	name := unsafeKIDChars.ReplaceAllString(t.Name(), "_")
	if len(name) > 48 {
		name = name[len(name)-48:]
	}
	return "ins_" + name + "_" + randomHex(t, 6)
}

// KeyID returns the kid put in the header of tokens and in the JWKS.
func (i *Issuer) KeyID() string { return i.kid }

// PublicKeyPEM returns the public key as a PKIX "PUBLIC KEY" PEM, the format of session.Config.JWTKey.
func (i *Issuer) PublicKeyPEM() string {
	der, err := x509.MarshalPKIXPublicKey(&i.key.PublicKey)
	if err != nil {
		panic("sessiontest: marshal public key: " + err.Error()) // cannot happen for an RSA key
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// Token mints an RS256 JWT signed by the Issuer, shaped like a Clerk session token.
func (i *Issuer) Token(t testing.TB, c TokenClaims) string {
	t.Helper()
	kid := c.KeyID
	if kid == "" {
		kid = i.kid
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: i.key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		t.Fatalf("sessiontest: signer: %v", err)
	}
	iat := c.IssuedAt
	if iat.IsZero() {
		iat = time.Now()
	}
	ttl := c.TTL
	if ttl == 0 {
		ttl = time.Minute
	}
	claims := map[string]any{"iss": c.Issuer, "iat": iat.Unix(), "nbf": iat.Unix()}
	if c.Issuer == "" {
		claims["iss"] = DefaultIssuer
	}
	if !c.OmitExp {
		claims["exp"] = iat.Add(ttl).Unix()
	}
	if !c.AuthTime.IsZero() {
		claims["auth_time"] = c.AuthTime.Unix()
	}
	if c.EmailVerified {
		claims["email_verified"] = true
	}
	sid := c.SessionID
	if sid == "" && !c.OmitSID {
		sid = "sess_" + randomHex(t, 8)
	}
	for name, v := range map[string]string{"sub": c.UserID, "sid": sid, "email": c.Email, "azp": c.AuthorizedParty} {
		if v != "" {
			claims[name] = v
		}
	}
	token, err := jwt.Signed(signer).Claims(claims).CompactSerialize() // v3 name; v4 calls it Serialize
	if err != nil {
		t.Fatalf("sessiontest: sign token: %v", err)
	}
	return token
}

// JWKSServer serves the Issuer's public key (alg RS256, use sig, kid) at {apiURL}/jwks the way Clerk's Backend
// API does, answering 401 to requests without a bearer secret key. requests counts JWKS requests. The server is
// closed at test cleanup.
func (i *Issuer) JWKSServer(t testing.TB) (apiURL string, requests func() int) {
	t.Helper()
	j := i.JWKS(t)
	return j.URL, j.Requests
}

// JWKS is a fake Clerk Backend API serving one Issuer's key set, which a test can take down and bring back.
type JWKS struct {
	// URL is the API base to use as session.Config.APIURL; the key set is at URL + "/jwks".
	URL   string
	count atomic.Int64
	down  atomic.Bool
	held  atomic.Pointer[chan struct{}]
}

// JWKS starts a fake JWKS endpoint for the Issuer, up, as JWKSServer describes. It is closed at test cleanup.
func (i *Issuer) JWKS(t testing.TB) *JWKS {
	t.Helper()
	body, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{
		Key: &i.key.PublicKey, KeyID: i.kid, Algorithm: string(jose.RS256), Use: "sig",
	}}})
	if err != nil {
		t.Fatalf("sessiontest: marshal jwks: %v", err)
	}
	j := &JWKS{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/jwks", func(w http.ResponseWriter, r *http.Request) {
		j.count.Add(1)
		if held := j.held.Load(); held != nil {
			select {
			case <-*held:
			case <-r.Context().Done(): // the client gave up
				return
			}
		}
		if j.down.Load() {
			// What an outage looks like from here: a proxy's HTML error page, not Clerk's JSON.
			http.Error(w, "<html><body>502 Bad Gateway</body></html>", http.StatusBadGateway)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer sk_") {
			http.Error(w, `{"errors":[{"code":"authentication_invalid","message":"missing secret key"}]}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	j.URL = srv.URL + "/v1"
	return j
}

// Requests counts the JWKS requests served, failed ones included.
func (j *JWKS) Requests() int { return int(j.count.Load()) }

// SetDown makes every later JWKS request fail with a 502 (down) or succeed again (!down).
func (j *JWKS) SetDown(down bool) { j.down.Store(down) }

// Hold makes JWKS requests hang, like an endpoint that accepts connections and never answers, until release
// is called (at test cleanup at the latest); then they are answered as usual.
func (j *JWKS) Hold(t testing.TB) (release func()) {
	ch := make(chan struct{})
	j.held.Store(&ch)
	var once sync.Once
	release = func() {
		once.Do(func() {
			j.held.Store(nil)
			close(ch)
		})
	}
	t.Cleanup(release) // before the server's Close, which waits for held handlers
	return release
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("sessiontest: random: %v", err)
	}
	return hex.EncodeToString(b)
}
