package billing

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
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

// Verify checks sig against the claimed fields. at is when the checkout completed (the event's
// occurred_at, not the time of this delivery: Paddle may retry a delivery for days).
func (s *CheckoutSigner) Verify(sig, clerkUserID, email, priceID string, at time.Time) error {
	ts, macHex, ok := strings.Cut(sig, ".")
	if !ok {
		return ErrCheckoutSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrCheckoutSignature
	}
	issued := time.Unix(sec, 0)
	if at.Before(issued.Add(-checkoutSkew)) || at.After(issued.Add(checkoutValidity)) {
		return ErrCheckoutSignature
	}
	got, err := hex.DecodeString(macHex)
	if err != nil || !hmac.Equal(got, s.mac(clerkUserID, email, priceID, ts)) {
		return ErrCheckoutSignature
	}
	return nil
}

func (s *CheckoutSigner) mac(clerkUserID, email, priceID, ts string) []byte {
	m := hmac.New(sha256.New, s.key)
	// "|" cannot appear in Clerk ids, emails we accept or Paddle price ids, so fields cannot be shifted.
	m.Write([]byte("v1|" + clerkUserID + "|" + strings.ToLower(email) + "|" + priceID + "|" + ts))
	return m.Sum(nil)
}
