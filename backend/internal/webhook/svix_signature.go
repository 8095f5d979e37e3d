package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Svix (Clerk's webhook sender) header names, in canonical MIME form so they also work as http.Header map keys.
const (
	// SvixIDHeader carries the message id (msg_…); it stays the same when Svix resends a message.
	SvixIDHeader = "Svix-Id"
	// SvixTimestampHeader carries the signing time in Unix seconds.
	SvixTimestampHeader = "Svix-Timestamp"
	// SvixSignatureHeader carries a space-separated list of "v1,<base64 HMAC-SHA256>" entries.
	SvixSignatureHeader = "Svix-Signature"
)

// svixSecretPrefix is how Svix and Clerk display signing secrets; the key is the base64 after it.
const svixSecretPrefix = "whsec_"

// svixBase64 is built once because Strict returns a fresh copy of the encoding on every call.
var svixBase64 = base64.StdEncoding.Strict()

// The wrapped errors are built once: a flood of forged deliveries then costs no allocation to reject.
var (
	errSvixMissing   = fmt.Errorf("svix signature: %w", ErrMissingSignature)
	errSvixMalformed = fmt.Errorf("svix signature: %w", ErrMalformedSignature)
	errSvixStale     = fmt.Errorf("svix signature: %w", ErrStaleSignature)
	errSvixBad       = fmt.Errorf("svix signature: %w", ErrBadSignature)
)

// SvixSignature verifies Svix-signed webhooks (Clerk): HMAC-SHA256 over "id.timestamp.body" with the decoded
// whsec_ key, carried in the svix-signature header.
type SvixSignature struct {
	keys      []*hmacKey
	tolerance time.Duration
}

var _ Verifier = (*SvixSignature)(nil)

// NewSvixSignature returns a verifier that accepts a v1 signature made with any of secrets (several during a
// rotation) whose timestamp is within tolerance of now. Each secret is "whsec_<base64>" (the prefix is
// optional) and is decoded once, here. Blank entries are skipped; at least one secret is required.
func NewSvixSignature(secrets []string, tolerance time.Duration) (*SvixSignature, error) {
	if tolerance <= 0 {
		return nil, errors.New("svix signature: tolerance must be positive")
	}
	clean := cleanSecrets(secrets)
	if len(clean) == 0 {
		return nil, errors.New("svix signature: no secret configured")
	}
	keys := make([]*hmacKey, len(clean))
	for i, s := range clean {
		key, err := decodeSvixSecret(s)
		if err != nil {
			// Name the position, never the value: this message ends up in boot logs.
			return nil, fmt.Errorf("svix signature: secret #%d: %w", i+1, err)
		}
		keys[i] = newHMACKey(key)
	}
	return &SvixSignature{keys: keys, tolerance: tolerance}, nil
}

// decodeSvixSecret turns "whsec_<base64>" into the HMAC key. Its errors never contain the secret:
// base64.CorruptInputError only reports an offset, and we replace it anyway.
func decodeSvixSecret(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, svixSecretPrefix))
	if err != nil {
		return nil, errors.New("not valid base64 after the whsec_ prefix")
	}
	if len(key) == 0 {
		return nil, errors.New("empty key after the whsec_ prefix")
	}
	return key, nil
}

// Verify checks the svix-id, svix-timestamp and svix-signature headers against the exact raw body. It returns
// nil or an error matching one of ErrMissingSignature, ErrMalformedSignature, ErrStaleSignature or
// ErrBadSignature.
func (s *SvixSignature) Verify(h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get(SvixIDHeader), h.Get(SvixTimestampHeader), h.Get(SvixSignatureHeader)
	if id == "" || ts == "" || sigs == "" {
		return errSvixMissing
	}
	sec, ok := parseUnixSeconds(ts)
	if !ok || !svixHeaderHasMAC(sigs, nil) {
		return errSvixMalformed
	}
	if !withinTolerance(now, sec, s.tolerance) {
		return errSvixStale
	}
	for _, key := range s.keys {
		want := svixMAC(key, id, ts, body)
		if svixHeaderHasMAC(sigs, want[:]) {
			return nil
		}
	}
	return errSvixBad
}

// svixHeaderHasMAC reports whether any well-formed v1 entry equals want (constant-time). With want == nil it
// reports whether there is any well-formed v1 entry at all. Other versions (v1a, a future v2) are skipped, as
// the Svix libraries do, so a sender can add a scheme without breaking receivers.
func svixHeaderHasMAC(header string, want []byte) bool {
	// Split on single spaces, as svix-go does, skipping the empty entries that repeated spaces leave.
	for entry := range strings.SplitSeq(header, " ") {
		version, sig, found := strings.Cut(entry, ",")
		if !found || version != "v1" {
			continue
		}
		var got [sha256.Size]byte
		if decodeSvixMAC(&got, sig) && (want == nil || hmac.Equal(got[:], want)) {
			return true
		}
	}
	return false
}

// decodeSvixMAC decodes a padded standard-base64 HMAC-SHA256 into dst. Strict decoding refuses embedded
// newlines and non-zero padding bits, so one MAC has exactly one accepted spelling, as in svix-go, which
// compares the base64 strings.
func decodeSvixMAC(dst *[sha256.Size]byte, s string) bool {
	var src [44]byte // base64.StdEncoding.EncodedLen(sha256.Size); a stack copy avoids []byte(s) allocating
	var out [sha256.Size + 1]byte
	if len(s) != len(src) {
		return false
	}
	copy(src[:], s)
	n, err := svixBase64.Decode(out[:], src[:])
	if err != nil || n != sha256.Size {
		return false
	}
	copy(dst[:], out[:n])
	return true
}

// svixMAC computes HMAC-SHA256(key, id + "." + ts + "." + body), the bytes Svix signs. ts is the header value
// as received, which parseUnixSeconds has already limited to plain digits.
func svixMAC(key *hmacKey, id, ts string, body []byte) [sha256.Size]byte {
	return key.sum(body, id, ".", ts, ".")
}

// SignSvix returns the three Svix headers for body signed with secret ("whsec_<base64>") as message msgID at
// ts, exactly as Svix would send them. It exists for tests, the bench load generator and the "webhook send"
// dev command.
func SignSvix(secret, msgID string, ts time.Time, body []byte) (http.Header, error) {
	key, err := decodeSvixSecret(strings.TrimSpace(secret))
	if err != nil {
		return nil, fmt.Errorf("sign svix: %w", err)
	}
	unix := strconv.FormatInt(ts.Unix(), 10)
	mac := svixMAC(newHMACKey(key), msgID, unix, body)
	h := make(http.Header, 3)
	h.Set(SvixIDHeader, msgID)
	h.Set(SvixTimestampHeader, unix)
	h.Set(SvixSignatureHeader, "v1,"+base64.StdEncoding.EncodeToString(mac[:]))
	return h, nil
}
