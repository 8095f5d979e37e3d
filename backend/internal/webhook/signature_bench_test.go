package webhook_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// benchBody is about the size of a real Paddle subscription event or Clerk user event.
var benchBody = bytes.Repeat([]byte(`{"k":"0123456789abcdef"},`), 2048/25)

func BenchmarkPaddleVerify(b *testing.B) {
	now := time.Unix(paddleSDKTS, 0)
	// Two secrets and two h1 values, the worst realistic case: a rotation where only the second pair matches.
	v := newPaddle(b, paddleRotatedSecret, paddleSDKSecret)
	sig := webhook.SignPaddle(paddleSDKSecret, now, benchBody)
	h := paddleHeader(sig + ";h1=" + flipHex(sig[len(sig)-64:]))
	b.ReportAllocs()
	b.SetBytes(int64(len(benchBody)))
	for b.Loop() {
		if err := v.Verify(h, benchBody, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSvixVerify(b *testing.B) {
	now := time.Unix(svixDocTS, 0)
	v := newSvix(b, svixOtherSecret, svixDocSecret)
	h, err := webhook.SignSvix(svixDocSecret, svixDocID, now, benchBody)
	if err != nil {
		b.Fatal(err)
	}
	h.Set(webhook.SvixSignatureHeader, "v1a,xyz v1,"+flipBase64(h.Get(webhook.SvixSignatureHeader)[3:])+" "+h.Get(webhook.SvixSignatureHeader))
	b.ReportAllocs()
	b.SetBytes(int64(len(benchBody)))
	for b.Loop() {
		if err := v.Verify(h, benchBody, now); err != nil {
			b.Fatal(err)
		}
	}
}
