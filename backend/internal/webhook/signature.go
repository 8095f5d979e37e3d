package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"hash"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Verifier authenticates one delivery from its headers and exact raw body, before any parsing.
type Verifier interface {
	Verify(h http.Header, body []byte, now time.Time) error
}

// Every error a Verifier returns matches exactly one of these sentinels with errors.Is, so the HTTP layer can
// choose a status and a log field without matching strings.
var (
	// ErrMissingSignature means a required signature header is absent or empty.
	ErrMissingSignature = errors.New("missing signature headers")
	// ErrMalformedSignature means the signature headers are present but cannot be parsed.
	ErrMalformedSignature = errors.New("malformed signature header")
	// ErrStaleSignature means the signed timestamp is further from now than the tolerance, in either direction.
	ErrStaleSignature = errors.New("signature timestamp outside tolerance")
	// ErrBadSignature means no signature in the header matches the body under any configured secret.
	ErrBadSignature = errors.New("no matching signature")
)

// maxUnixDigits bounds a timestamp header: 18 decimal digits cannot overflow int64, and real Unix times
// have 10 for the next few centuries.
const maxUnixDigits = 18

// parseUnixSeconds accepts only plain ASCII digits. strconv.ParseInt would also take "+17…" or "-5"; those
// are never sent by a provider, and refusing them keeps "the bytes we sign" and "the number we check"
// the same thing.
func parseUnixSeconds(s string) (int64, bool) {
	if s == "" || len(s) > maxUnixDigits {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// withinTolerance reports whether the signed time sec lies within tol of now, in the past or the future.
// The future matters too: a clock-skewed or pre-signed delivery must not buy an attacker a longer replay window.
func withinTolerance(now time.Time, sec int64, tol time.Duration) bool {
	// Reject far-off values in whole seconds first, so time.Unix/Sub never see a value that could overflow.
	nowSec, tolSec := now.Unix(), int64(tol/time.Second)+1
	if sec < nowSec-tolSec || sec > nowSec+tolSec {
		return false
	}
	d := now.Sub(time.Unix(sec, 0))
	return d <= tol && d >= -tol
}

// cleanSecrets drops blank entries: a comma-separated list in config ("a,b," or "a, b") must not turn into an
// empty HMAC key that anyone can sign with. Surrounding spaces are never part of a provider secret.
func cleanSecrets(secrets []string) []string {
	out := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// hmacKey is one HMAC-SHA256 key with a pool of keyed states. hmac.New costs nine allocations and two extra
// SHA-256 blocks per call; Reset on a used state restores the keyed state from a saved copy, so steady-state
// verification allocates nothing even under a flood of forged deliveries.
type hmacKey struct {
	pool sync.Pool // of *hmacState
}

// hmacState is one reusable HMAC computation with scratch space that lives as long as it does.
type hmacState struct {
	mac     hash.Hash
	scratch [64]byte // staging for string input: []byte(s) would allocate on every call
	sum     [sha256.Size]byte
}

func newHMACKey(key []byte) *hmacKey {
	k := &hmacKey{}
	k.pool.New = func() any { return &hmacState{mac: hmac.New(sha256.New, key)} }
	return k
}

// sum returns HMAC-SHA256 over the concatenation of parts followed by body.
func (k *hmacKey) sum(body []byte, parts ...string) [sha256.Size]byte {
	st := k.pool.Get().(*hmacState)
	defer k.pool.Put(st)
	st.mac.Reset()
	for _, s := range parts {
		st.writeString(s)
	}
	st.mac.Write(body)
	return [sha256.Size]byte(st.mac.Sum(st.sum[:0]))
}

func (st *hmacState) writeString(s string) {
	for len(s) > 0 {
		n := copy(st.scratch[:], s)
		st.mac.Write(st.scratch[:n])
		s = s[n:]
	}
}
