package webhook_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// A signature exactly at the tolerance, in the past or the future, is accepted; a second more is not.
// Two tolerances: the bound is in whole seconds before it is compared, and a tolerance scaled wrongly
// (nanoseconds times time.Second) wraps around int64 to a value that passes at 5 minutes and refuses
// every signature at 2.
func TestSignatureToleranceIsInclusive(t *testing.T) {
	t.Parallel()
	for _, tol := range []time.Duration{2 * time.Minute, 5 * time.Minute} {
		t.Run(tol.String(), func(t *testing.T) { t.Parallel(); toleranceIsInclusive(t, tol) })
	}
}

func toleranceIsInclusive(t *testing.T, tol time.Duration) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	paddle, err := webhook.NewPaddleSignature([]string{secret}, tol)
	require.NoError(t, err)
	svix, err := webhook.NewSvixSignature([]string{svixDocSecret}, tol)
	require.NoError(t, err)
	body := []byte(`{"event_id":"evt_1","event_type":"effect.happened"}`)
	for _, tc := range []struct {
		at time.Time
		ok bool
	}{
		{now.Add(-tol), true}, {now.Add(tol), true},
		{now.Add(-tol - time.Second), false}, {now.Add(tol + time.Second), false},
	} {
		h := http.Header{}
		h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(secret, tc.at, body))
		err := paddle.Verify(h, body, now)
		sh, serr := webhook.SignSvix(svixDocSecret, "msg_1", tc.at, body)
		require.NoError(t, serr)
		errSvix := svix.Verify(sh, body, now)
		if tc.ok {
			require.NoError(t, err, "paddle, signed at %s", tc.at)
			require.NoError(t, errSvix, "svix, signed at %s", tc.at)
		} else {
			require.ErrorIs(t, err, webhook.ErrStaleSignature, "paddle, signed at %s", tc.at)
			require.ErrorIs(t, errSvix, webhook.ErrStaleSignature, "svix, signed at %s", tc.at)
		}
	}
}

// One Svix MAC has one accepted spelling, as in svix-go (which compares the base64 strings): the same 32
// bytes spelled with non-zero padding bits in the last character are refused, and so is a MAC of 31
// bytes that happens to be 44 characters long.
func TestSvixMACWithNonZeroPaddingBitsIsRefused(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	svix, err := webhook.NewSvixSignature([]string{svixDocSecret}, 5*time.Minute)
	require.NoError(t, err)
	body := []byte(`{"type":"user.created","data":{"id":"user_1"}}`)
	h, err := webhook.SignSvix(svixDocSecret, "msg_1", now, body)
	require.NoError(t, err)
	require.NoError(t, svix.Verify(h, body, now))

	sig := h.Get("svix-signature")
	i := strings.LastIndex(sig, "=") - 1 // the last data character: its low two bits are padding
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	v := strings.IndexByte(alphabet, sig[i])
	require.Zero(t, v&3, "a canonical spelling has zero padding bits")
	h.Set("svix-signature", sig[:i]+string(alphabet[v|1])+sig[i+1:])
	require.ErrorIs(t, svix.Verify(h, body, now), webhook.ErrMalformedSignature)

	// 44 characters are not enough: "==" padding spells 31 bytes, a MAC cut short, which is no MAC at all.
	mac, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(sig, "v1,"))
	require.NoError(t, err)
	short := base64.StdEncoding.EncodeToString(mac[:31])
	require.Len(t, short, 44)
	h.Set("svix-signature", "v1,"+short)
	require.ErrorIs(t, svix.Verify(h, body, now), webhook.ErrMalformedSignature)
}
