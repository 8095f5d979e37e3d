package email

import (
	"testing"

	"github.com/stretchr/testify/require"
	gomail "github.com/wneessen/go-mail"
)

func TestParseSMTPURLTLSRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url      string
		port     int
		implicit bool
		policy   gomail.TLSPolicy
	}{
		{"smtps://u:p@mail.example.com", 465, true, gomail.TLSMandatory},
		{"smtp://u:p@mail.example.com:465", 465, true, gomail.TLSMandatory},
		{"smtp://u:p@mail.example.com", 587, false, gomail.TLSMandatory},
		{"smtp://u:p@mail.example.com:25?starttls=opportunistic", 25, false, gomail.TLSOpportunistic},
		{"smtp://relay.internal:25?starttls=off", 25, false, gomail.NoTLS},
		{"smtp://u:p@127.0.0.1:1025", 1025, false, gomail.NoTLS},
		{"smtp://localhost:1025", 1025, false, gomail.NoTLS},
		{"smtp://[::1]:1025", 1025, false, gomail.NoTLS},
		{"smtp://localhost:1025?starttls=mandatory", 1025, false, gomail.TLSMandatory},
	} {
		got, err := parseSMTPURL(tc.url)
		require.NoError(t, err, tc.url)
		require.Equal(t, tc.port, got.port, tc.url)
		require.Equal(t, tc.implicit, got.implicitTLS, tc.url)
		require.Equal(t, tc.policy, got.policy, tc.url)
	}
}

func TestParseSMTPURLRejects(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"",
		"mail.example.com:587", // no scheme
		"smtp://u:p@mail.example.com?starttls=off",    // credentials in clear over the network
		"smtps://mail.example.com?starttls=mandatory", // contradiction
		"smtp://mail.example.com:0",                   // port out of range
		"smtp://mail.example.com:70000",               // port out of range
		"smtp://mail.example.com?starttls=sometimes",  // unknown policy
	} {
		_, err := parseSMTPURL(raw)
		require.ErrorIs(t, err, ErrConfig, raw)
		require.ErrorContains(t, err, "SMTP_URL", raw)
	}
}

func TestParseSMTPURLDecodesCredentials(t *testing.T) {
	t.Parallel()
	got, err := parseSMTPURL("smtps://apikey%40example.com:s3cr%2Fet@mail.example.com")
	require.NoError(t, err)
	require.Equal(t, "apikey@example.com", got.user)
	require.Equal(t, "s3cr/et", got.pass)
}
