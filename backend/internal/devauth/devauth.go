// Package devauth is the development-only identity: a local RSA key, created on first use, that signs
// Clerk-shaped session tokens, so the whole API can be driven with no Clerk account (`fabrica dev token`).
// The server trusts the key only when APP_ENV=development and no Clerk key is configured (app wires it);
// in staging and production it is never loaded, and a dev token is refused like any forged one.
package devauth

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-jose/go-jose/v3"
	"github.com/go-jose/go-jose/v3/jwt"
)

// Issuer is the iss of dev tokens. It must look like a Clerk instance: clerk-sdk-go refuses other issuers.
const Issuer = "https://clerk.fabrica.localhost"

// DefaultUserID is the fixed dev user of `fabrica dev token`, and DefaultAdminUserID the one of --admin.
const (
	DefaultUserID      = "user_dev"
	DefaultAdminUserID = "user_dev_admin"
)

// LoadOrCreateKey reads the PEM private key at path, creating it (2048-bit RSA, mode 0600) on first use.
// Concurrent first uses (the server and `fabrica dev token` at once) agree on one key: the new key is
// written to a temporary file and linked into place, which fails if another process got there first.
func LoadOrCreateKey(path string) (*rsa.PrivateKey, error) {
	if k, err := readKey(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return k, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("dev session key: %w", err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("dev session key: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dev-session-key-*")
	if err != nil {
		return nil, fmt.Errorf("dev session key: %w", err)
	}
	defer os.Remove(tmp.Name())
	block := &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}
	if err := errors.Join(pem.Encode(tmp, block), tmp.Close()); err != nil {
		return nil, fmt.Errorf("dev session key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("dev session key: %w", err)
	}
	return readKey(path)
}

func readKey(path string) (*rsa.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(raw)
	if block == nil || block.Type != "RSA PRIVATE KEY" {
		return nil, fmt.Errorf("dev session key %s: not an RSA private key PEM (delete it to make a new one)", path)
	}
	k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("dev session key %s: %w", path, err)
	}
	return k, nil
}

// PublicKeyPEM is the key's public half as a PKIX PEM, the form session.Config.JWTKey takes.
func PublicKeyPEM(k *rsa.PrivateKey) string {
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		panic("devauth: marshal public key: " + err.Error()) // cannot happen for an RSA key
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// Claims describe a dev session.
type Claims struct {
	UserID string
	// Email is carried with email_verified: true, as a Clerk session customised with both claims would.
	Email string
	TTL   time.Duration
}

// Token mints a session token like Clerk's: sub, a fresh sid, verified email, auth_time now (a sign-in, so
// it also restores a soft-deleted dev account), iat/nbf now, exp now+TTL.
func Token(k *rsa.PrivateKey, c Claims, now time.Time) (string, error) {
	if c.UserID == "" || c.TTL <= 0 {
		return "", errors.New("dev token: a user id and a positive ttl are required")
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: k},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "dev"))
	if err != nil {
		return "", fmt.Errorf("dev token: %w", err)
	}
	sid := make([]byte, 8)
	if _, err := rand.Read(sid); err != nil {
		return "", fmt.Errorf("dev token: %w", err)
	}
	claims := map[string]any{
		"iss": Issuer, "sub": c.UserID, "sid": "sess_dev_" + hex.EncodeToString(sid),
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(c.TTL).Unix(), "auth_time": now.Unix(),
	}
	if c.Email != "" {
		claims["email"], claims["email_verified"] = c.Email, true
	}
	return jwt.Signed(signer).Claims(claims).CompactSerialize()
}
