package email_test

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

const testFrom = "Fabrica <hello@fabrica.test>"

func newSMTP(t *testing.T, f *fakeSMTP, query string) *email.SMTPSender {
	t.Helper()
	s, err := email.NewSMTPSender(email.Config{From: testFrom, SMTPURL: "smtp://user:pass@" + f.Addr + query}, nil)
	require.NoError(t, err)
	return s
}

func testMessage() email.Message {
	return email.WithUnsubscribe(email.Message{
		To:             "Ada <ada@example.com>",
		Subject:        "Hello Ada",
		Text:           "plain body",
		HTML:           "<p>html body</p>",
		Headers:        map[string]string{"X-Campaign": "spring"},
		IdempotencyKey: "welcome/user_123",
	}, "https://app.test/u?t=abc")
}

func TestSMTPSenderDeliversMultipartWithAuth(t *testing.T) {
	t.Parallel()
	f := startFakeSMTP(t, nil)
	require.NoError(t, newSMTP(t, f, "").Send(t.Context(), testMessage()))

	sessions := f.Sessions()
	require.Len(t, sessions, 1)
	s := sessions[0]
	require.Equal(t, "PLAIN", s.AuthMech)
	require.Equal(t, "user", s.AuthUser)
	require.Equal(t, "pass", s.AuthPass)
	require.Equal(t, "hello@fabrica.test", s.MailFrom)
	require.Equal(t, []string{"ada@example.com"}, s.Rcpts)

	msg, err := mail.ReadMessage(strings.NewReader(s.Data))
	require.NoError(t, err)
	from, err := mail.ParseAddress(msg.Header.Get("From"))
	require.NoError(t, err)
	require.Equal(t, "hello@fabrica.test", from.Address)
	require.Contains(t, msg.Header.Get("To"), "ada@example.com")
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	require.NoError(t, err)
	require.Equal(t, "Hello Ada", subject)
	require.Equal(t, "spring", msg.Header.Get("X-Campaign"))
	require.Equal(t, "<https://app.test/u?t=abc>", msg.Header.Get("List-Unsubscribe"))
	require.Equal(t, "List-Unsubscribe=One-Click", msg.Header.Get("List-Unsubscribe-Post"))
	require.True(t, strings.HasSuffix(msg.Header.Get("Message-ID"), "@fabrica.test>"))

	parts := readAlternatives(t, msg)
	require.Equal(t, "plain body", strings.TrimSpace(parts["text/plain"]))
	require.Equal(t, "<p>html body</p>", strings.TrimSpace(parts["text/html"]))
}

// readAlternatives returns the decoded body of each part of a multipart/alternative message by media type.
func readAlternatives(t *testing.T, msg *mail.Message) map[string]string {
	t.Helper()
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	require.NoError(t, err)
	require.Equal(t, "multipart/alternative", mediaType)
	mr := multipart.NewReader(msg.Body, params["boundary"])
	out := map[string]string{}
	for {
		p, err := mr.NextPart() // decodes quoted-printable
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		pt, _, err := mime.ParseMediaType(p.Header.Get("Content-Type"))
		require.NoError(t, err)
		b, err := io.ReadAll(p)
		require.NoError(t, err)
		out[pt] = string(b)
	}
}

func TestSMTPSenderUsesLoginWhenOnlyLoginOffered(t *testing.T) {
	t.Parallel()
	f := startFakeSMTP(t, func(f *fakeSMTP) { f.AuthMechs = "LOGIN" })
	require.NoError(t, newSMTP(t, f, "").Send(t.Context(), testMessage()))
	s := f.Sessions()[0]
	require.Equal(t, []string{"LOGIN", "user", "pass"}, []string{s.AuthMech, s.AuthUser, s.AuthPass})
}

func TestSMTPSenderSameIdempotencyKeySameMessageID(t *testing.T) {
	t.Parallel()
	f := startFakeSMTP(t, nil)
	s := newSMTP(t, f, "")
	require.NoError(t, s.Send(t.Context(), testMessage()))
	require.NoError(t, s.Send(t.Context(), testMessage()))
	other := testMessage()
	other.IdempotencyKey = "welcome/user_456"
	require.NoError(t, s.Send(t.Context(), other))

	var ids []string
	for _, sess := range f.Sessions() {
		msg, err := mail.ReadMessage(strings.NewReader(sess.Data))
		require.NoError(t, err)
		ids = append(ids, msg.Header.Get("Message-ID"))
	}
	require.Len(t, ids, 3)
	require.Equal(t, ids[0], ids[1], "a retried send must carry the same Message-ID")
	require.NotEqual(t, ids[0], ids[2])
}

func TestSMTPSenderClassifiesFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		configure func(*fakeSMTP)
		permanent bool
	}{
		{"550 on RCPT is permanent", func(f *fakeSMTP) { f.RcptReply = "550 5.1.1 no such user" }, true},
		{"451 on RCPT is retryable", func(f *fakeSMTP) { f.RcptReply = "451 4.3.0 try later" }, false},
		{"554 after DATA is permanent", func(f *fakeSMTP) { f.DataReply = "554 5.7.1 rejected as spam" }, true},
		{"452 after DATA is retryable", func(f *fakeSMTP) { f.DataReply = "452 4.3.1 mailbox full" }, false},
		{"connection dropped at MAIL is retryable", func(f *fakeSMTP) { f.HangupOn = "MAIL" }, false},
		{"connection dropped at EHLO is retryable", func(f *fakeSMTP) { f.HangupOn = "EHLO" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFakeSMTP(t, tc.configure)
			err := newSMTP(t, f, "").Send(t.Context(), testMessage())
			require.Error(t, err)
			require.Equal(t, tc.permanent, errorsIsPermanent(err), "error: %v", err)
		})
	}
}

func TestSMTPSenderDeliveredThenDroppedIsSuccess(t *testing.T) {
	t.Parallel()
	// The server accepted the message (250 after DATA) and then vanished before answering QUIT. Reporting
	// an error would make the job send the same mail again.
	f := startFakeSMTP(t, func(f *fakeSMTP) { f.HangupOn = "QUIT" })
	require.NoError(t, newSMTP(t, f, "").Send(t.Context(), testMessage()))
	require.NotEmpty(t, f.Sessions()[0].Data)
}

func TestSMTPSenderRefusesPlaintextWhenSTARTTLSMandatory(t *testing.T) {
	t.Parallel()
	f := startFakeSMTP(t, nil) // advertises no STARTTLS
	err := newSMTP(t, f, "?starttls=mandatory").Send(t.Context(), testMessage())
	require.ErrorContains(t, err, "STARTTLS")
	require.False(t, errorsIsPermanent(err))
	for _, s := range f.Sessions() {
		require.Empty(t, s.AuthPass, "credentials must not cross a plaintext connection")
		require.Empty(t, s.Data)
	}
}

func TestSMTPSenderHonoursContext(t *testing.T) {
	t.Parallel()
	f := startFakeSMTP(t, func(f *fakeSMTP) { f.Stall = true })
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := newSMTP(t, f, "").Send(ctx, testMessage())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.False(t, errorsIsPermanent(err))
	require.Less(t, time.Since(start), 5*time.Second, "go-mail's own 15s timeout must not be what ended it")
}

func TestSMTPSenderRejectsBadMessageWithoutDialling(t *testing.T) {
	t.Parallel()
	f := startFakeSMTP(t, nil)
	s := newSMTP(t, f, "")
	for _, m := range []email.Message{
		{To: "not an address", Subject: "s", Text: "t"},
		{To: "a@example.com", Subject: "s"},
		{To: "a@example.com", Subject: "s", Text: "t", Headers: map[string]string{"X-Evil": "a\r\nBcc: x@y.z"}},
		{To: "a@example.com", Subject: "s", Text: "t", Headers: map[string]string{"From": "x@y.z"}},
	} {
		require.ErrorIs(t, s.Send(t.Context(), m), email.ErrPermanent)
	}
	require.Empty(t, f.Sessions())
}
