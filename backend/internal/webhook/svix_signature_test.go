package webhook_test

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	svix "github.com/svix/svix-webhooks/go"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Svix's documented example (svix-webhooks go/webhook_test.go TestWebhookSign and the "verify manually" docs).
const (
	svixDocSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	svixDocID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	svixDocTS     = 1614265330
	svixDocBody   = `{"test": 2432232314}`
	svixDocSig    = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	svixTol       = 5 * time.Minute
)

var (
	svixDocTime = time.Unix(svixDocTS, 0)
	// svixOtherSecret stands in for the second secret of a rotation.
	svixOtherSecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("fabrica rotation test key 32 by!"))
)

func newSvix(t testing.TB, secrets ...string) *webhook.SvixSignature {
	t.Helper()
	v, err := webhook.NewSvixSignature(secrets, svixTol)
	require.NoError(t, err)
	return v
}

// svixHeaders builds the three headers; an empty value leaves that header out.
func svixHeaders(id, ts, sig string) http.Header {
	h := http.Header{}
	for k, v := range map[string]string{
		webhook.SvixIDHeader: id, webhook.SvixTimestampHeader: ts, webhook.SvixSignatureHeader: sig,
	} {
		if v != "" {
			h.Set(k, v)
		}
	}
	return h
}

// officialSign signs with svix-go, the reference implementation.
func officialSign(t testing.TB, secret, id string, ts time.Time, body []byte) string {
	t.Helper()
	wh, err := svix.NewWebhook(secret)
	require.NoError(t, err)
	sig, err := wh.Sign(id, ts, body)
	require.NoError(t, err)
	return sig
}

// flipBase64 changes one character in the middle of a v1 signature so it stays well-formed but wrong.
func flipBase64(sig string) string {
	i := len(sig) / 2
	repl := byte('A')
	if sig[i] == 'A' {
		repl = 'B'
	}
	return sig[:i] + string(repl) + sig[i+1:]
}

func TestSvixSignatureVerify(t *testing.T) {
	t.Parallel()

	ts := strconv.Itoa(svixDocTS)
	later := svixDocTime.Add(2 * time.Second)
	otherSig := officialSign(t, svixOtherSecret, svixDocID, svixDocTime, []byte(svixDocBody))

	tests := []struct {
		name      string
		secrets   []string
		id, ts    string
		sig, body string
		now       time.Time
		want      error
	}{
		{name: "svix doc vector", sig: svixDocSig, now: later},
		{name: "exactly tolerance old", sig: svixDocSig, now: svixDocTime.Add(svixTol)},
		{name: "exactly tolerance ahead", sig: svixDocSig, now: svixDocTime.Add(-svixTol)},
		{name: "secret without whsec_ prefix", secrets: []string{strings.TrimPrefix(svixDocSecret, "whsec_")}, sig: svixDocSig, now: later},
		{name: "multi signature with junk", sig: "v1,AAAA v1a,xyz " + svixDocSig, now: later},
		{name: "multi signature good first", sig: svixDocSig + " v1," + flipBase64(svixDocSig[3:]), now: later},
		{name: "extra spaces between entries", sig: "  v2,abc   " + svixDocSig + "  ", now: later},
		{name: "rotation old secret first", secrets: []string{svixDocSecret, svixOtherSecret}, sig: svixDocSig, now: later},
		{name: "rotation new secret first", secrets: []string{svixOtherSecret, svixDocSecret}, sig: svixDocSig, now: later},
		{name: "rotation signed with new secret", secrets: []string{svixDocSecret, svixOtherSecret}, sig: otherSig, now: later},
		{name: "rotation header with both", secrets: []string{svixOtherSecret}, sig: svixDocSig + " " + otherSig, now: later},

		{name: "missing id", id: "-", sig: svixDocSig, now: later, want: webhook.ErrMissingSignature},
		{name: "missing timestamp", ts: "-", sig: svixDocSig, now: later, want: webhook.ErrMissingSignature},
		{name: "missing signature", sig: "", now: later, want: webhook.ErrMissingSignature},

		{name: "non numeric timestamp", ts: "abc", sig: svixDocSig, now: later, want: webhook.ErrMalformedSignature},
		{name: "fractional timestamp", ts: ts + ".5", sig: svixDocSig, now: later, want: webhook.ErrMalformedSignature},
		{name: "signed timestamp", ts: "+" + ts, sig: svixDocSig, now: later, want: webhook.ErrMalformedSignature},
		{name: "millisecond timestamp is stale not malformed", ts: ts + "000", sig: svixDocSig, now: later, want: webhook.ErrStaleSignature},
		{name: "only other versions", sig: "v1a,xyz v2,abc", now: later, want: webhook.ErrMalformedSignature},
		{name: "empty v1", sig: "v1,", now: later, want: webhook.ErrMalformedSignature},
		{name: "short v1", sig: "v1,AAAA", now: later, want: webhook.ErrMalformedSignature},
		{name: "v1 not base64", sig: "v1," + strings.Repeat("!", 44), now: later, want: webhook.ErrMalformedSignature},
		{name: "v1 without comma", sig: "v1" + svixDocSig[3:], now: later, want: webhook.ErrMalformedSignature},
		{name: "unpadded v1", sig: strings.TrimSuffix(svixDocSig, "="), now: later, want: webhook.ErrMalformedSignature},
		{name: "garbage", sig: "garbage", now: later, want: webhook.ErrMalformedSignature},

		{name: "stale", sig: svixDocSig, now: svixDocTime.Add(svixTol + time.Second), want: webhook.ErrStaleSignature},
		{name: "future", sig: svixDocSig, now: svixDocTime.Add(-svixTol - time.Second), want: webhook.ErrStaleSignature},

		{name: "tampered body", sig: svixDocSig, body: `{"test": 2432232315}`, now: later, want: webhook.ErrBadSignature},
		{name: "tampered id", id: svixDocID + "x", sig: svixDocSig, now: later, want: webhook.ErrBadSignature},
		{name: "tampered timestamp within tolerance", ts: strconv.Itoa(svixDocTS + 1), sig: svixDocSig, now: later, want: webhook.ErrBadSignature},
		{name: "tampered signature", sig: "v1," + flipBase64(svixDocSig[3:]), now: later, want: webhook.ErrBadSignature},
		{name: "right signature wrong version", sig: "v1,AAAA v2" + svixDocSig[2:] + " v1," + flipBase64(svixDocSig[3:]), now: later, want: webhook.ErrBadSignature},
		{name: "wrong secret", secrets: []string{svixOtherSecret}, sig: svixDocSig, now: later, want: webhook.ErrBadSignature},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			secrets := tc.secrets
			if secrets == nil {
				secrets = []string{svixDocSecret}
			}
			id, tsv, body := orDefault(tc.id, svixDocID), orDefault(tc.ts, ts), orDefault(tc.body, svixDocBody)
			err := newSvix(t, secrets...).Verify(svixHeaders(id, tsv, tc.sig), []byte(body), tc.now)
			requireSentinel(t, tc.want, err)
		})
	}
}

// orDefault returns def for "", and "" for "-" (a way to say "leave this header out").
func orDefault(v, def string) string {
	switch v {
	case "":
		return def
	case "-":
		return ""
	}
	return v
}

func TestSvixSignatureAcceptsLowercaseHeaderNames(t *testing.T) {
	t.Parallel()
	// Clerk's docs spell them svix-id etc.; a header map built by hand must still work.
	h := http.Header{}
	h.Set("svix-id", svixDocID)
	h.Set("svix-timestamp", strconv.Itoa(svixDocTS))
	h.Set("svix-signature", svixDocSig)
	require.NoError(t, newSvix(t, svixDocSecret).Verify(h, []byte(svixDocBody), svixDocTime))
}

func TestSignSvixReproducesDocVector(t *testing.T) {
	t.Parallel()
	h, err := webhook.SignSvix(svixDocSecret, svixDocID, svixDocTime, []byte(svixDocBody))
	require.NoError(t, err)
	require.Equal(t, svixDocID, h.Get(webhook.SvixIDHeader))
	require.Equal(t, strconv.Itoa(svixDocTS), h.Get(webhook.SvixTimestampHeader))
	require.Equal(t, svixDocSig, h.Get(webhook.SvixSignatureHeader))
}

// TestSvixInteropWithOfficialLibrary checks both directions against svix-go on random ids, bodies and secrets:
// what svix-go signs we accept, and what SignSvix produces svix-go accepts.
func TestSvixInteropWithOfficialLibrary(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4)) // fixed seed: a failure must be reproducible
	for i := range 40 {
		secret := "whsec_" + base64.StdEncoding.EncodeToString(randomBytes(rng, 16+rng.IntN(48)))
		id := fmt.Sprintf("msg_%016x", rng.Uint64())
		body := randomBytes(rng, rng.IntN(4096))
		// svix-go's Verify reads the wall clock, so sign "now" for that direction.
		now := time.Now()

		ours := newSvix(t, secret)
		h := svixHeaders(id, strconv.FormatInt(now.Unix(), 10), officialSign(t, secret, id, now, body))
		require.NoError(t, ours.Verify(h, body, now), "svix-go signed, we verify, case #%d", i)

		signed, err := webhook.SignSvix(secret, id, now, body)
		require.NoError(t, err)
		wh, err := svix.NewWebhook(secret)
		require.NoError(t, err)
		require.NoError(t, wh.Verify(body, signed), "we sign, svix-go verifies, case #%d", i)
		require.NoError(t, ours.Verify(signed, body, now), "round trip, case #%d", i)

		if len(body) > 0 {
			body[rng.IntN(len(body))] ^= 0x80
			requireSentinel(t, webhook.ErrBadSignature, ours.Verify(signed, body, now))
			require.Error(t, wh.Verify(body, signed))
		}
	}
}

func TestNewSvixSignature(t *testing.T) {
	t.Parallel()
	const badSecret = "whsec_not*base64!"
	tests := []struct {
		name      string
		secrets   []string
		tolerance time.Duration
		wantErr   string
	}{
		{name: "one secret", secrets: []string{svixDocSecret}, tolerance: svixTol},
		{name: "without prefix", secrets: []string{strings.TrimPrefix(svixDocSecret, "whsec_")}, tolerance: svixTol},
		{name: "blank entries skipped", secrets: []string{"", svixDocSecret, " "}, tolerance: svixTol},
		{name: "surrounding spaces trimmed", secrets: []string{" " + svixDocSecret + " "}, tolerance: svixTol},
		{name: "nil secrets", secrets: nil, tolerance: svixTol, wantErr: "no secret configured"},
		{name: "only blank secrets", secrets: []string{"", " "}, tolerance: svixTol, wantErr: "no secret configured"},
		{name: "bad base64", secrets: []string{badSecret}, tolerance: svixTol, wantErr: "secret #1: not valid base64"},
		{name: "bad base64 second", secrets: []string{svixDocSecret, badSecret}, tolerance: svixTol, wantErr: "secret #2: not valid base64"},
		{name: "url base64 alphabet", secrets: []string{"whsec_ab-_"}, tolerance: svixTol, wantErr: "not valid base64"},
		{name: "prefix only", secrets: []string{"whsec_"}, tolerance: svixTol, wantErr: "empty key"},
		{name: "zero tolerance", secrets: []string{svixDocSecret}, tolerance: 0, wantErr: "tolerance must be positive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := webhook.NewSvixSignature(tc.secrets, tc.tolerance)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				require.NotContains(t, err.Error(), "not*base64", "the secret must never be echoed")
				require.Nil(t, v)
				return
			}
			require.NoError(t, err)
			h := svixHeaders(svixDocID, strconv.Itoa(svixDocTS), svixDocSig)
			require.NoError(t, v.Verify(h, []byte(svixDocBody), svixDocTime))
		})
	}
}

func TestSignSvixRejectsBadSecret(t *testing.T) {
	t.Parallel()
	h, err := webhook.SignSvix("whsec_not*base64!", svixDocID, svixDocTime, nil)
	require.ErrorContains(t, err, "not valid base64")
	require.NotContains(t, err.Error(), "not*base64")
	require.Nil(t, h)
}
