package webhook_test

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Paddle's documented example, copied literally from paddle-go-sdk v4.1.0 webhook_verifier_test.go and
// example_webhook_verifier_test.go. It pins our signed-bytes layout (ts + ":" + body, the secret's own bytes as
// the key) to what Paddle actually sends.
const (
	paddleSDKSignature = `ts=1710929255;h1=6c05ef8fa83c44d751be6d259ec955ce5638e2c54095bf128e408e2fce1589c8`
	paddleSDKPayload   = `{"data":{"id":"pri_01hsdn96k2hxjzsq5yerecdj9j","name":null,"status":"active","quantity":{"maximum":999999,"minimum":1},"tax_mode":"account_setting","product_id":"pro_01hsdn8qp7yydry3x1yeg6a9rv","unit_price":{"amount":"1000","currency_code":"USD"},"custom_data":null,"description":"testing","import_meta":null,"trial_period":null,"billing_cycle":{"interval":"month","frequency":1},"unit_price_overrides":[]},"event_id":"evt_01hsdn97563968dy0szkmgjwh3","event_type":"price.created","occurred_at":"2024-03-20T10:07:35.590857Z","notification_id":"ntf_01hsdn977e920kbgzt6r6c9rqc"}`
	paddleSDKSecret    = `pdl_ntfset_01hsdn8d43dt7mezr1ef2jtbaw_hKkRiCGyyRhbFwIUuqiTBgI7gnWoV0Gr`

	paddleSDKTS         = 1710929255
	paddleSDKH1         = "6c05ef8fa83c44d751be6d259ec955ce5638e2c54095bf128e408e2fce1589c8"
	paddleRotatedSecret = "pdl_ntfset_01hsdn8d43dt7mezr1ef2jtbaw_rotatedSecretXXXXXXXXXXXXXXXXXXXX"
	paddleTol           = 5 * time.Minute
)

// paddleSDKTime is when the SDK example was signed; tests verify "a moment later".
var paddleSDKTime = time.Unix(paddleSDKTS, 0)

// allSentinels lists every error a verifier may return; any error must match exactly one of them.
var allSentinels = []error{
	webhook.ErrMissingSignature, webhook.ErrMalformedSignature, webhook.ErrStaleSignature, webhook.ErrBadSignature,
}

// requireSentinel asserts err is nil when want is nil, else that it matches want and no other sentinel.
func requireSentinel(t testing.TB, want, err error) {
	t.Helper()
	if want == nil {
		require.NoError(t, err)
		return
	}
	require.ErrorIs(t, err, want)
	for _, s := range allSentinels {
		if s != want {
			require.NotErrorIs(t, err, s)
		}
	}
}

func paddleHeader(v string) http.Header {
	h := http.Header{}
	h.Set(webhook.PaddleSignatureHeader, v)
	return h
}

func newPaddle(t testing.TB, secrets ...string) *webhook.PaddleSignature {
	t.Helper()
	v, err := webhook.NewPaddleSignature(secrets, paddleTol)
	require.NoError(t, err)
	return v
}

// flipHex changes the last hex digit of a signature so it stays well-formed but wrong.
func flipHex(sig string) string {
	last := sig[len(sig)-1]
	repl := byte('0')
	if last == '0' {
		repl = '1'
	}
	return sig[:len(sig)-1] + string(repl)
}

func TestPaddleSignatureVerify(t *testing.T) {
	t.Parallel()

	ts := "ts=1710929255"
	h1 := "h1=" + paddleSDKH1
	wrongH1 := "h1=" + flipHex(paddleSDKH1)
	later := paddleSDKTime.Add(2 * time.Second)
	otherSigned := webhook.SignPaddle(paddleRotatedSecret, paddleSDKTime, []byte(paddleSDKPayload))

	tests := []struct {
		name    string
		secrets []string
		header  *string // nil: no header at all
		body    string
		now     time.Time
		want    error
	}{
		{name: "sdk example vector", header: ptr(paddleSDKSignature), now: later},
		{name: "signed this second", header: ptr(paddleSDKSignature), now: paddleSDKTime},
		{name: "exactly tolerance old", header: ptr(paddleSDKSignature), now: paddleSDKTime.Add(paddleTol)},
		{name: "exactly tolerance ahead", header: ptr(paddleSDKSignature), now: paddleSDKTime.Add(-paddleTol)},
		{name: "spaces around parts", header: ptr("  ts = 1710929255 ;  h1= " + paddleSDKH1 + " "), now: later},
		{name: "h1 before ts", header: ptr(h1 + ";" + ts), now: later},
		{name: "unknown keys ignored", header: ptr(ts + ";h2=zz;foo;" + h1 + ";x=1"), now: later},
		// Accepted on purpose: see decodePaddleMAC. Case carries no information once decoded.
		{name: "uppercase hex h1", header: ptr(ts + ";h1=" + strings.ToUpper(paddleSDKH1)), now: later},
		{name: "multiple h1 wrong then right", header: ptr(ts + ";" + wrongH1 + ";" + h1), now: later},
		{name: "multiple h1 right then wrong", header: ptr(ts + ";" + h1 + ";" + wrongH1), now: later},
		{name: "malformed h1 next to good h1", header: ptr(ts + ";h1=nothex;" + h1), now: later},
		{name: "rotation old secret first", secrets: []string{paddleSDKSecret, paddleRotatedSecret}, header: ptr(paddleSDKSignature), now: later},
		{name: "rotation new secret first", secrets: []string{paddleRotatedSecret, paddleSDKSecret}, header: ptr(paddleSDKSignature), now: later},
		{name: "rotation signed with new secret", secrets: []string{paddleSDKSecret, paddleRotatedSecret}, header: ptr(otherSigned), now: later},
		{name: "rotation header with both h1", secrets: []string{paddleRotatedSecret}, header: ptr(paddleSDKSignature + ";" + otherSigned[len(ts)+1:]), now: later},

		{name: "missing header", header: nil, now: later, want: webhook.ErrMissingSignature},
		{name: "empty header", header: ptr(""), now: later, want: webhook.ErrMissingSignature},
		{name: "blank header", header: ptr("   "), now: later, want: webhook.ErrMissingSignature},

		{name: "no ts", header: ptr(h1), now: later, want: webhook.ErrMalformedSignature},
		{name: "no h1", header: ptr(ts), now: later, want: webhook.ErrMalformedSignature},
		{name: "empty ts", header: ptr("ts=;" + h1), now: later, want: webhook.ErrMalformedSignature},
		{name: "non numeric ts", header: ptr("ts=abc;" + h1), now: later, want: webhook.ErrMalformedSignature},
		{name: "signed ts", header: ptr("ts=+1710929255;" + h1), now: later, want: webhook.ErrMalformedSignature},
		{name: "negative ts", header: ptr("ts=-1;" + h1), now: later, want: webhook.ErrMalformedSignature},
		{name: "huge ts", header: ptr("ts=99999999999999999999999;" + h1), now: later, want: webhook.ErrMalformedSignature},
		{name: "duplicate ts", header: ptr(ts + ";" + ts + ";" + h1), now: later, want: webhook.ErrMalformedSignature},
		{name: "non hex h1", header: ptr(ts + ";h1=" + strings.Repeat("zz", 32)), now: later, want: webhook.ErrMalformedSignature},
		{name: "short h1", header: ptr(ts + ";h1=abcd"), now: later, want: webhook.ErrMalformedSignature},
		{name: "long h1", header: ptr(ts + ";" + h1 + "00"), now: later, want: webhook.ErrMalformedSignature},
		{name: "empty h1", header: ptr(ts + ";h1="), now: later, want: webhook.ErrMalformedSignature},
		{name: "comma separated", header: ptr(ts + "," + h1), now: later, want: webhook.ErrMalformedSignature},
		{name: "garbage", header: ptr("garbage"), now: later, want: webhook.ErrMalformedSignature},

		{name: "stale", header: ptr(paddleSDKSignature), now: paddleSDKTime.Add(paddleTol + time.Second), want: webhook.ErrStaleSignature},
		{name: "stale by a fraction", header: ptr(paddleSDKSignature), now: paddleSDKTime.Add(paddleTol + time.Millisecond), want: webhook.ErrStaleSignature},
		{name: "future", header: ptr(paddleSDKSignature), now: paddleSDKTime.Add(-paddleTol - time.Second), want: webhook.ErrStaleSignature},
		{name: "far future ts", header: ptr("ts=999999999999999999;" + h1), now: later, want: webhook.ErrStaleSignature},
		{name: "epoch ts", header: ptr("ts=0;" + h1), now: later, want: webhook.ErrStaleSignature},

		{name: "tampered body", header: ptr(paddleSDKSignature), body: strings.Replace(paddleSDKPayload, "1000", "1", 1), now: later, want: webhook.ErrBadSignature},
		{name: "empty body", header: ptr(paddleSDKSignature), body: "-", now: later, want: webhook.ErrBadSignature},
		{name: "tampered signature", header: ptr(ts + ";" + wrongH1), now: later, want: webhook.ErrBadSignature},
		// Only an h1 is a MAC: the right MAC under another key (h2, a future scheme's) next to a wrong h1 is not.
		{name: "right mac under another key", header: ptr(ts + ";" + wrongH1 + ";h2=" + paddleSDKH1), now: later, want: webhook.ErrBadSignature},
		{name: "tampered ts within tolerance", header: ptr("ts=1710929256;" + h1), now: later, want: webhook.ErrBadSignature},
		{name: "wrong secret", secrets: []string{paddleRotatedSecret}, header: ptr(paddleSDKSignature), now: later, want: webhook.ErrBadSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			secrets := tc.secrets
			if secrets == nil {
				secrets = []string{paddleSDKSecret}
			}
			h := http.Header{}
			if tc.header != nil {
				h.Set(webhook.PaddleSignatureHeader, *tc.header)
			}
			body := tc.body
			switch body {
			case "":
				body = paddleSDKPayload
			case "-":
				body = ""
			}
			err := newPaddle(t, secrets...).Verify(h, []byte(body), tc.now)
			requireSentinel(t, tc.want, err)
		})
	}
}

func TestSignPaddleReproducesSDKExample(t *testing.T) {
	t.Parallel()
	got := webhook.SignPaddle(paddleSDKSecret, paddleSDKTime, []byte(paddleSDKPayload))
	require.Equal(t, paddleSDKSignature, got)
}

func TestSignPaddleRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2)) // fixed seed: a failure must be reproducible
	v := newPaddle(t, paddleSDKSecret)
	now := time.Now()
	for i := range 50 {
		body := randomBytes(rng, rng.IntN(4096))
		h := paddleHeader(webhook.SignPaddle(paddleSDKSecret, now, body))
		require.NoError(t, v.Verify(h, body, now), "body #%d", i)
		if len(body) > 0 {
			body[rng.IntN(len(body))] ^= 0x01
			requireSentinel(t, webhook.ErrBadSignature, v.Verify(h, body, now))
		}
	}
}

func TestNewPaddleSignature(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		secrets   []string
		tolerance time.Duration
		wantErr   string
	}{
		{name: "one secret", secrets: []string{paddleSDKSecret}, tolerance: paddleTol},
		{name: "blank entries skipped", secrets: []string{"", " ", paddleSDKSecret}, tolerance: paddleTol},
		{name: "nil secrets", secrets: nil, tolerance: paddleTol, wantErr: "no secret configured"},
		{name: "only blank secrets", secrets: []string{"", "  "}, tolerance: paddleTol, wantErr: "no secret configured"},
		{name: "zero tolerance", secrets: []string{paddleSDKSecret}, tolerance: 0, wantErr: "tolerance must be positive"},
		{name: "negative tolerance", secrets: []string{paddleSDKSecret}, tolerance: -time.Second, wantErr: "tolerance must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := webhook.NewPaddleSignature(tc.secrets, tc.tolerance)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				require.Nil(t, v)
				return
			}
			require.NoError(t, err)
			require.NoError(t, v.Verify(paddleHeader(paddleSDKSignature), []byte(paddleSDKPayload), paddleSDKTime))
		})
	}
}

func TestNewPaddleSignatureTrimsSecrets(t *testing.T) {
	t.Parallel()
	// "a, b" in an env var splits into " b"; the space must not silently become part of the key.
	v := newPaddle(t, " "+paddleSDKSecret+" ")
	require.NoError(t, v.Verify(paddleHeader(paddleSDKSignature), []byte(paddleSDKPayload), paddleSDKTime))
}

func TestPaddleErrorsArePrefixed(t *testing.T) {
	t.Parallel()
	err := newPaddle(t, paddleSDKSecret).Verify(http.Header{}, nil, paddleSDKTime)
	require.EqualError(t, err, "paddle signature: missing signature headers")
	require.True(t, errors.Is(err, webhook.ErrMissingSignature))
}

func ptr[T any](v T) *T { return &v }

func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}
