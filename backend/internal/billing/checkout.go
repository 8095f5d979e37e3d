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
//
// A signature proves who checked out (the user, their verified email, when it was issued), not what they
// will pay for: the plan comes from the subscription's items, as it does once the subscription row exists.
// Signatures of the first format (v1) also bound the price, so a plan change that Paddle delivered before
// the subscription's creation (subscription.updated with the new price, retried out of order) failed as a
// forgery and the change was lost. v1 signatures still verify (VerifyMAC's legacy prices), whatever price
// the event carries now.
const (
	// checkoutValidity is how long after signing a checkout may complete.
	checkoutValidity = 6 * time.Hour
	// checkoutSkew tolerates a signer clock slightly ahead of Paddle's.
	checkoutSkew = 5 * time.Minute
	// checkoutV2 starts every signature Sign issues; a signature without it is v1.
	checkoutV2 = "v2."
)

// ErrCheckoutSignature means custom_data carries a checkout signature that does not verify: tampered,
// or for another user or email. It is a hard reject, never a fallback to other evidence.
var ErrCheckoutSignature = errors.New("invalid checkout signature")

// CheckoutSigner signs and verifies checkout custom_data.
type CheckoutSigner struct {
	key []byte
}

// NewCheckoutSigner builds a signer keyed by secret.
func NewCheckoutSigner(secret string) *CheckoutSigner { return &CheckoutSigner{key: []byte(secret)} }

// Sign returns "v2.<unix issued>.<hex HMAC>" over the user, the folded email and the issue time.
func (s *CheckoutSigner) Sign(clerkUserID, addr string, issued time.Time) string {
	ts := strconv.FormatInt(issued.Unix(), 10)
	return checkoutV2 + ts + "." + hex.EncodeToString(s.mac(ts, "v2", clerkUserID, email.Fold(addr)))
}

// ErrCheckoutExpired means a checkout signature is genuine but older than the window that lets it create a
// user we have not seen: not a forgery, so it is not permanent (the user's Clerk webhook may still come,
// and then the signature binds whatever its age).
var ErrCheckoutExpired = errors.New("checkout signature too old to create a new user")

// Verify checks sig against the claimed fields and the validity window: at is when the checkout completed
// (the event's occurred_at, not the time of this delivery: Paddle may retry a delivery for days).
// legacyPrices are the prices a v1 signature may have bound (see VerifyMAC).
func (s *CheckoutSigner) Verify(sig, clerkUserID, addr string, at time.Time, legacyPrices ...string) error {
	issued, err := s.VerifyMAC(sig, clerkUserID, addr, legacyPrices...)
	if err != nil {
		return err
	}
	if !Fresh(issued, at) {
		return ErrCheckoutExpired
	}
	return nil
}

// VerifyMAC checks sig's MAC against the claimed user and email, whatever its age, and returns when it was
// issued. A MAC that does not verify is a forgery or a tampered field: ErrCheckoutSignature, which no
// retry heals. A v1 signature (issued before v2, binding a price too) verifies if it binds one of
// legacyPrices: a v1 MAC that is genuine for any price proves who checked out as well as a v2 one does.
func (s *CheckoutSigner) VerifyMAC(sig, clerkUserID, addr string, legacyPrices ...string) (time.Time, error) {
	v2 := strings.HasPrefix(sig, checkoutV2)
	ts, macHex, ok := strings.Cut(strings.TrimPrefix(sig, checkoutV2), ".")
	if !ok {
		return time.Time{}, ErrCheckoutSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return time.Time{}, ErrCheckoutSignature
	}
	got, err := hex.DecodeString(macHex)
	if err != nil {
		return time.Time{}, ErrCheckoutSignature
	}
	if v2 {
		if !hmac.Equal(got, s.mac(ts, "v2", clerkUserID, email.Fold(addr))) {
			return time.Time{}, ErrCheckoutSignature
		}
		return time.Unix(sec, 0), nil
	}
	for _, price := range legacyPrices {
		if hmac.Equal(got, s.mac(ts, "v1", clerkUserID, email.Fold(addr), price)) {
			return time.Unix(sec, 0), nil
		}
	}
	return time.Time{}, ErrCheckoutSignature
}

// Fresh reports whether a checkout signed at issued and completed at at is inside the window in which it
// may create a user we have not seen yet.
func Fresh(issued, at time.Time) bool {
	return !at.Before(issued.Add(-checkoutSkew)) && !at.After(issued.Add(checkoutValidity))
}

// mac is the HMAC of fields and the issue time, joined by "|": "|" cannot appear in Clerk ids, emails we
// accept or Paddle price ids, so fields cannot be shifted, and the first field (v1, v2) keeps the formats
// apart.
func (s *CheckoutSigner) mac(ts string, fields ...string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(strings.Join(fields, "|") + "|" + ts))
	return m.Sum(nil)
}
