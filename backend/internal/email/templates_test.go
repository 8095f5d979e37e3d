package email_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

var (
	periodEnd = time.Date(2026, time.April, 1, 1, 30, 0, 0, time.FixedZone("CEST", 2*3600))
	htmlTag   = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
)

type rendered struct{ subject, text, html string }

// renderAll renders every template with the given address and returns them by name.
func renderAll(t *testing.T, addr string) map[string]rendered {
	t.Helper()
	out := map[string]rendered{}
	add := func(name string, s, tx, h string, err error) {
		require.NoError(t, err, name)
		out[name] = rendered{s, tx, h}
	}
	s, tx, h, err := email.Welcome(email.WelcomeData{Email: addr, AppName: "Fabrica", DashboardURL: "https://app.test/dashboard"})
	add("welcome", s, tx, h, err)
	s, tx, h, err = email.SubscriptionStarted(email.SubscriptionStartedData{
		Email: addr, AppName: "Fabrica", Tier: "pro", PeriodEnd: periodEnd, Credits: 500,
	})
	add("started", s, tx, h, err)
	s, tx, h, err = email.SubscriptionCanceled(email.SubscriptionCanceledData{
		Email: addr, AppName: "Fabrica", Tier: "pro", AccessUntil: periodEnd,
	})
	add("canceled", s, tx, h, err)
	return out
}

func TestTemplatesEscapeUserDataInHTML(t *testing.T) {
	t.Parallel()
	for name, r := range renderAll(t, `<script>alert(1)</script>@evil.test`) {
		require.NotContains(t, r.html, "<script>", name)
		require.Contains(t, r.html, "&lt;script&gt;", name)
	}
}

func TestTemplatesTextHasNoHTML(t *testing.T) {
	t.Parallel()
	for name, r := range renderAll(t, "ada@example.com") {
		require.NotRegexp(t, htmlTag, r.text, name)
		require.NotContains(t, r.text, "&lt;", name)
		require.Contains(t, r.text, "ada@example.com", name)
		require.Contains(t, r.html, "ada@example.com", name)
		require.Contains(t, r.html, "<html", name)
	}
}

func TestTemplatesSubjectsAndFacts(t *testing.T) {
	t.Parallel()
	r := renderAll(t, "ada@example.com")
	require.Equal(t, "Welcome to Fabrica", r["welcome"].subject)
	require.Equal(t, "Your Fabrica pro subscription is active", r["started"].subject)
	require.Equal(t, "Your Fabrica pro subscription has been canceled", r["canceled"].subject)

	require.Contains(t, r["welcome"].text, "https://app.test/dashboard")
	require.Contains(t, r["welcome"].html, `href="https://app.test/dashboard"`)
	// 01:30 CEST on 1 April is 23:30 UTC on 31 March: dates are shown in UTC.
	for _, name := range []string{"started", "canceled"} {
		require.Contains(t, r[name].text, "31 March 2026", name)
		require.Contains(t, r[name].html, "31 March 2026", name)
	}
	require.Contains(t, r["started"].text, "500 credits")
	require.Contains(t, r["started"].html, "<strong>500</strong> credits")
}

func TestSubscriptionStartedOmitsZeroCredits(t *testing.T) {
	t.Parallel()
	_, text, html, err := email.SubscriptionStarted(email.SubscriptionStartedData{
		Email: "ada@example.com", AppName: "Fabrica", Tier: "pro", PeriodEnd: periodEnd,
	})
	require.NoError(t, err)
	require.NotContains(t, text, "credits")
	require.NotContains(t, html, "credits")
}

func TestWelcomeNeutralisesUnsafeURLAndSubjectBreaks(t *testing.T) {
	t.Parallel()
	subject, _, html, err := email.Welcome(email.WelcomeData{
		Email: "ada@example.com", AppName: "Fab\r\nBcc: x@evil.test", DashboardURL: "javascript:alert(1)",
	})
	require.NoError(t, err)
	require.NotContains(t, html, "javascript:")
	require.NotContains(t, subject, "\n")
	require.NotContains(t, subject, "\r")
}

func TestWithUnsubscribeSetsRFC8058Headers(t *testing.T) {
	t.Parallel()
	orig := email.Message{To: "ada@example.com", Headers: map[string]string{"X-Campaign": "spring"}}
	m := email.WithUnsubscribe(orig, "https://app.test/api/v1/email/unsubscribe?t=tok")
	require.Equal(t, "<https://app.test/api/v1/email/unsubscribe?t=tok>", m.Headers["List-Unsubscribe"])
	require.Equal(t, "List-Unsubscribe=One-Click", m.Headers["List-Unsubscribe-Post"])
	require.Equal(t, "spring", m.Headers["X-Campaign"])
	require.Len(t, orig.Headers, 1, "the caller's map must not change")

	m = email.WithUnsubscribe(email.Message{}, "https://app.test/u")
	require.Len(t, m.Headers, 2)
	require.False(t, strings.ContainsAny(m.Headers["List-Unsubscribe"], "\r\n"))
}
