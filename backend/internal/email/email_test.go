package email_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

func errorsIsPermanent(err error) bool { return errors.Is(err, email.ErrPermanent) }

func TestNewBuildsEachDriver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg  email.Config
		want email.Sender
	}{
		{email.Config{Driver: "log"}, &email.LogSender{}},
		{email.Config{Driver: "smtp", From: testFrom, SMTPURL: "smtps://u:p@smtp.example.com"}, &email.SMTPSender{}},
		{email.Config{Driver: "resend", From: testFrom, ResendAPIKey: "re_123"}, &email.ResendSender{}},
	} {
		s, err := email.New(tc.cfg, nil)
		require.NoError(t, err, tc.cfg.Driver)
		require.IsType(t, tc.want, s)
	}
}

func TestNewErrorsNameTheVariable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  email.Config
		want string
	}{
		{"unknown driver", email.Config{Driver: "pigeon"}, "EMAIL_DRIVER"},
		{"empty driver", email.Config{}, "EMAIL_DRIVER"},
		{"smtp without url", email.Config{Driver: "smtp", From: testFrom}, "SMTP_URL"},
		{"smtp bad scheme", email.Config{Driver: "smtp", From: testFrom, SMTPURL: "http://u:hunter2@h"}, "SMTP_URL"},
		{"smtp unparsable", email.Config{Driver: "smtp", From: testFrom, SMTPURL: "smtp://u:hunter2@h:bad port"}, "SMTP_URL"},
		{"smtp bad starttls", email.Config{Driver: "smtp", From: testFrom, SMTPURL: "smtp://h?starttls=maybe"}, "SMTP_URL"},
		{"smtp bad from", email.Config{Driver: "smtp", From: "nobody", SMTPURL: "smtp://h"}, "EMAIL_FROM"},
		{"resend without key", email.Config{Driver: "resend", From: testFrom}, "RESEND_API_KEY"},
		{"resend bad from", email.Config{Driver: "resend", ResendAPIKey: "re_123"}, "EMAIL_FROM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := email.New(tc.cfg, nil)
			require.ErrorIs(t, err, email.ErrConfig)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "hunter2", "the SMTP password must never reach a log")
		})
	}
}
