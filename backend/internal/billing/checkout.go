package billing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

// Checkout signatures bind a Paddle checkout to the user who opened it: the frontend passes
// custom_data {clerk_user_id, email, checkout_sig} to Paddle.js, Paddle copies custom_data onto the
// transaction and the subscription, and the webhook trusts clerk_user_id only if the signature verifies.
// The key is CHECKOUT_SIGNING_SECRET, never a webhook secret, so rotating one never breaks the other.
const (
	// checkoutValidity is how long after signing a checkout may complete.
	checkoutValidity = 6 * time.Hour
	// checkoutSkew tolerates a signer clock slightly ahead of Paddle's.
	checkoutSkew = 5 * time.Minute
)

// ErrCheckoutSignature means custom_data carries a checkout signature that does not verify: tampered,
// expired, or for another user, email or price. It is a hard reject, never a fallback to other evidence.
var ErrCheckoutSignature = errors.New("invalid checkout signature")

// CheckoutSigner signs and verifies checkout custom_data.
type CheckoutSigner struct {
	key []byte
}

// NewCheckoutSigner builds a signer keyed by secret.
func NewCheckoutSigner(secret string) *CheckoutSigner { return &CheckoutSigner{key: []byte(secret)} }

// Sign returns "<unix issued>.<hex HMAC>" over the user, lower-cased email, price and issue time.
func (s *CheckoutSigner) Sign(clerkUserID, email, priceID string, issued time.Time) string {
	ts := strconv.FormatInt(issued.Unix(), 10)
	return ts + "." + hex.EncodeToString(s.mac(clerkUserID, email, priceID, ts))
}

// ErrCheckoutExpired means a checkout signature is genuine but older than the window that lets it create a
// user we have not seen: not a forgery, so it is not permanent (the user's Clerk webhook may still come,
// and then the signature binds whatever its age).
var ErrCheckoutExpired = errors.New("checkout signature too old to create a new user")

// Verify checks sig against the claimed fields and the validity window: at is when the checkout completed
// (the event's occurred_at, not the time of this delivery: Paddle may retry a delivery for days).
func (s *CheckoutSigner) Verify(sig, clerkUserID, email, priceID string, at time.Time) error {
	issued, err := s.VerifyMAC(sig, clerkUserID, email, priceID)
	if err != nil {
		return err
	}
	if !Fresh(issued, at) {
		return ErrCheckoutExpired
	}
	return nil
}

// VerifyMAC checks sig's MAC against the claimed fields, whatever its age, and returns when it was issued.
// A MAC that does not verify is a forgery or a tampered field: ErrCheckoutSignature, which no retry heals.
func (s *CheckoutSigner) VerifyMAC(sig, clerkUserID, email, priceID string) (time.Time, error) {
	ts, macHex, ok := strings.Cut(sig, ".")
	if !ok {
		return time.Time{}, ErrCheckoutSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return time.Time{}, ErrCheckoutSignature
	}
	got, err := hex.DecodeString(macHex)
	if err != nil || !hmac.Equal(got, s.mac(clerkUserID, email, priceID, ts)) {
		return time.Time{}, ErrCheckoutSignature
	}
	return time.Unix(sec, 0), nil
}

// Fresh reports whether a checkout signed at issued and completed at at is inside the window in which it
// may create a user we have not seen yet.
func Fresh(issued, at time.Time) bool {
	return !at.Before(issued.Add(-checkoutSkew)) && !at.After(issued.Add(checkoutValidity))
}

func (s *CheckoutSigner) mac(clerkUserID, addr, priceID, ts string) []byte {
	m := hmac.New(sha256.New, s.key)
	// "|" cannot appear in Clerk ids, emails we accept or Paddle price ids, so fields cannot be shifted.
	m.Write([]byte("v1|" + clerkUserID + "|" + email.Fold(addr) + "|" + priceID + "|" + ts))
	return m.Sum(nil)
}
