package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// requireKnownOutcome is the contract every verifier keeps on any input: nil, or an error matching exactly
// one sentinel (the HTTP layer maps sentinels to statuses; anything else would become a 500 and a retry).
func requireKnownOutcome(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	matched := 0
	for _, s := range allSentinels {
		if errors.Is(err, s) {
			matched++
		}
	}
	require.Equal(t, 1, matched, "error %q must match exactly one sentinel", err)
}

func FuzzPaddleSignatureHeader(f *testing.F) {
	body := []byte(paddleSDKPayload)
	f.Add(paddleSDKSignature, body)
	f.Add(" ts = 1710929255 ; h1 = "+strings.ToUpper(paddleSDKH1)+" ", body)
	f.Add("ts=1710929255;h1="+flipHex(paddleSDKH1)+";h1="+paddleSDKH1, body)
	f.Add("ts=1710929255;h1="+paddleSDKH1, []byte("tampered"))
	f.Add("ts=1710929255;ts=1710929255;h1="+paddleSDKH1, body)
	f.Add("ts=1710929254;h1="+paddleSDKH1, body)
	f.Add("ts=99999999999999999999;h1="+paddleSDKH1, body)
	f.Add("ts=-1;h1=abcd", body)
	f.Add("h1="+paddleSDKH1, body)
	f.Add("ts=1710929255", body)
	f.Add("ts=1710929255;h1=zz", body)
	f.Add(";;;===;", []byte{})
	f.Add("", []byte(nil))
	f.Add("garbage", []byte{0xff, 0x00})

	v, err := webhook.NewPaddleSignature([]string{paddleSDKSecret, paddleRotatedSecret}, paddleTol)
	require.NoError(f, err)
	now := paddleSDKTime.Add(2 * time.Second)

	f.Fuzz(func(t *testing.T, header string, body []byte) {
		err := v.Verify(paddleHeader(header), body, now)
		requireKnownOutcome(t, err)
		if err == nil {
			require.True(t, paddleOracle(header, body, paddleSDKSecret, paddleRotatedSecret),
				"accepted a header that carries no valid h1 for its ts: %q", header)
		}

		signed := webhook.SignPaddle(paddleSDKSecret, now, body)
		require.NoError(t, v.Verify(paddleHeader(signed), body, now), "a correctly signed body must verify")
	})
}

// paddleOracle is a deliberately naive second reading of the header: true if some "h1" part holds, in any
// case, the hex HMAC of some "ts" part's value and body under one of secrets.
func paddleOracle(header string, body []byte, secrets ...string) bool {
	var tss, h1s []string
	for _, part := range strings.Split(header, ";") {
		k, v, _ := strings.Cut(part, "=")
		switch strings.TrimSpace(k) {
		case "ts":
			tss = append(tss, strings.TrimSpace(v))
		case "h1":
			h1s = append(h1s, strings.ToLower(strings.TrimSpace(v)))
		}
	}
	for _, secret := range secrets {
		for _, ts := range tss {
			m := hmac.New(sha256.New, []byte(secret))
			m.Write([]byte(ts + ":"))
			m.Write(body)
			want := hex.EncodeToString(m.Sum(nil))
			for _, h1 := range h1s {
				if h1 == want {
					return true
				}
			}
		}
	}
	return false
}

func FuzzSvixSignatureHeader(f *testing.F) {
	ts := strconv.Itoa(svixDocTS)
	body := []byte(svixDocBody)
	f.Add(svixDocID, ts, svixDocSig, body)
	f.Add(svixDocID, ts, "v1,AAAA v1a,xyz "+svixDocSig, body)
	f.Add(svixDocID, ts, "  "+svixDocSig+"  ", body)
	f.Add(svixDocID, ts, svixDocSig, []byte("tampered"))
	f.Add(svixDocID, ts+"000", svixDocSig, body)
	f.Add(svixDocID, "+"+ts, svixDocSig, body)
	f.Add(svixDocID, "abc", svixDocSig, body)
	f.Add(svixDocID, ts, "v1,", body)
	f.Add(svixDocID, ts, "v1,"+strings.TrimSuffix(svixDocSig[3:], "="), body)
	f.Add(svixDocID, ts, "v1a,xyz v2,abc", body)
	f.Add("", ts, svixDocSig, body)
	f.Add(svixDocID, "", svixDocSig, body)
	f.Add(svixDocID, ts, "", body)
	f.Add("msg", "0", "garbage", []byte{})

	v, err := webhook.NewSvixSignature([]string{svixDocSecret, svixOtherSecret}, svixTol)
	require.NoError(f, err)
	now := svixDocTime.Add(2 * time.Second)

	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		err := v.Verify(svixHeaders(id, ts, sig), body, now)
		requireKnownOutcome(t, err)
		if err == nil {
			require.True(t, svixOracle(id, ts, sig, body, svixDocSecret, svixOtherSecret),
				"accepted headers without a valid v1 signature: id=%q ts=%q sig=%q", id, ts, sig)
		}

		if id == "" {
			return // an empty svix-id is a missing header, never a valid delivery
		}
		signed, err := webhook.SignSvix(svixDocSecret, id, now, body)
		require.NoError(t, err)
		require.NoError(t, v.Verify(signed, body, now), "a correctly signed body must verify")
	})
}

// svixOracle is a deliberately naive second reading: true if some space-separated "v1,<sig>" entry equals the
// base64 HMAC of id.ts.body under one of secrets, compared as strings like svix-go does.
func svixOracle(id, ts, sig string, body []byte, secrets ...string) bool {
	for _, secret := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
		if err != nil {
			panic(err)
		}
		m := hmac.New(sha256.New, key)
		m.Write([]byte(id + "." + ts + "."))
		m.Write(body)
		want := "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
		for _, entry := range strings.Split(sig, " ") {
			if entry == want {
				return true
			}
		}
	}
	return false
}
