package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// PaddleSignatureHeader is the header carrying a Paddle Billing webhook signature.
const PaddleSignatureHeader = "Paddle-Signature"

// The wrapped errors are built once: a flood of forged deliveries then costs no allocation to reject.
var (
	errPaddleMissing   = fmt.Errorf("paddle signature: %w", ErrMissingSignature)
	errPaddleMalformed = fmt.Errorf("paddle signature: %w", ErrMalformedSignature)
	errPaddleStale     = fmt.Errorf("paddle signature: %w", ErrStaleSignature)
	errPaddleBad       = fmt.Errorf("paddle signature: %w", ErrBadSignature)
)

// PaddleSignature verifies the Paddle-Signature header of Paddle Billing webhooks:
// "ts=<unix>;h1=<hex HMAC-SHA256 of ts:body>", with one h1 per active secret.
type PaddleSignature struct {
	secrets   []*hmacKey
	tolerance time.Duration
}

var _ Verifier = (*PaddleSignature)(nil)

// NewPaddleSignature returns a verifier that accepts a signature made with any of secrets (several during a
// rotation) whose timestamp is within tolerance of now. Secrets are used as their own UTF-8 bytes, as Paddle's
// SDKs do; they are never decoded. Blank entries are skipped; at least one secret is required.
func NewPaddleSignature(secrets []string, tolerance time.Duration) (*PaddleSignature, error) {
	if tolerance <= 0 {
		return nil, errors.New("paddle signature: tolerance must be positive")
	}
	clean := cleanSecrets(secrets)
	if len(clean) == 0 {
		return nil, errors.New("paddle signature: no secret configured")
	}
	keys := make([]*hmacKey, len(clean))
	for i, s := range clean {
		keys[i] = newHMACKey([]byte(s))
	}
	return &PaddleSignature{secrets: keys, tolerance: tolerance}, nil
}

// Verify checks the Paddle-Signature header against the exact raw body. It returns nil or an error matching
// one of ErrMissingSignature, ErrMalformedSignature, ErrStaleSignature or ErrBadSignature.
func (p *PaddleSignature) Verify(h http.Header, body []byte, now time.Time) error {
	header := h.Get(PaddleSignatureHeader)
	if strings.TrimSpace(header) == "" {
		return errPaddleMissing
	}
	ts, sec, ok := parsePaddleHeader(header)
	if !ok {
		return errPaddleMalformed
	}
	if !withinTolerance(now, sec, p.tolerance) {
		return errPaddleStale
	}
	// Secrets outside, header inside: a rotation has two secrets and two h1 values at most, so rescanning the
	// short header per secret is cheaper than collecting the h1 values somewhere.
	for _, key := range p.secrets {
		want := paddleMAC(key, ts, body)
		if paddleHeaderHasMAC(header, want[:]) {
			return nil
		}
	}
	return errPaddleBad
}

// parsePaddleHeader returns the ts value exactly as sent (it is part of the signed bytes) and its number.
// It succeeds only with exactly one numeric ts and at least one well-formed h1. Unknown keys and parts without
// "=" are ignored, so Paddle can add fields (an h2, say) without breaking us.
func parsePaddleHeader(header string) (ts string, sec int64, ok bool) {
	sawTS, sawH1 := false, false
	for part := range strings.SplitSeq(header, ";") {
		k, v, found := strings.Cut(part, "=")
		if !found {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "ts":
			// Two ts values would make "which one was signed" ambiguous; Paddle never sends that.
			if sawTS {
				return "", 0, false
			}
			sawTS, ts = true, v
		case "h1":
			var mac [sha256.Size]byte
			sawH1 = sawH1 || decodePaddleMAC(&mac, v)
		}
	}
	if !sawTS || !sawH1 {
		return "", 0, false
	}
	sec, ok = parseUnixSeconds(ts)
	return ts, sec, ok
}

// paddleHeaderHasMAC reports whether any well-formed h1 in header equals want, comparing in constant time.
func paddleHeaderHasMAC(header string, want []byte) bool {
	for part := range strings.SplitSeq(header, ";") {
		k, v, found := strings.Cut(part, "=")
		if !found || strings.TrimSpace(k) != "h1" {
			continue
		}
		var got [sha256.Size]byte
		if decodePaddleMAC(&got, strings.TrimSpace(v)) && hmac.Equal(got[:], want) {
			return true
		}
	}
	return false
}

// decodePaddleMAC decodes a 64-character hex h1 into dst. Uppercase hex is accepted: Paddle sends lowercase,
// but the comparison is on the decoded bytes, so the case carries no information an attacker could use, and
// rejecting it would only turn a correctly signed delivery into a retry storm.
func decodePaddleMAC(dst *[sha256.Size]byte, s string) bool {
	var src [2 * sha256.Size]byte // a stack copy: []byte(s) would allocate for 64 bytes
	if len(s) != len(src) {
		return false
	}
	copy(src[:], s)
	_, err := hex.Decode(dst[:], src[:])
	return err == nil
}

// paddleMAC computes HMAC-SHA256(key, ts + ":" + body), the bytes Paddle signs.
func paddleMAC(key *hmacKey, ts string, body []byte) [sha256.Size]byte {
	return key.sum(body, ts, ":")
}

// SignPaddle returns a Paddle-Signature header value for body signed with secret at ts, exactly as Paddle
// would send it. It exists for tests, the bench load generator and the "webhook send" dev command.
func SignPaddle(secret string, ts time.Time, body []byte) string {
	unix := strconv.FormatInt(ts.Unix(), 10)
	mac := paddleMAC(newHMACKey([]byte(secret)), unix, body)
	return "ts=" + unix + ";h1=" + hex.EncodeToString(mac[:])
}
