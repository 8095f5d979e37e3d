package email_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

func renderJSON(t *testing.T, r email.Renderer, template string, data any) email.Message {
	t.Helper()
	m, err := r.Render(template, mustJSON(t, data))
	require.NoError(t, err)
	return m
}

// Every email names the company in its footer (COMPANY_LEGAL_NAME), HTML-escaped; a marketing mail adds
// its unsubscribe link. A Renderer without a footer (Render) leaves both out.
func TestFooterNamesTheCompanyAndTheUnsubscribeLink(t *testing.T) {
	t.Parallel()
	welcome := email.WelcomeData{Email: "ada@example.com", AppName: "Fabrica", DashboardURL: "https://app.test"}
	r := email.Renderer{Footer: email.Footer{CompanyLegalName: "Fabrica <Labs> GmbH, Berlin"}}
	m := renderJSON(t, r, email.TemplateWelcome, welcome)
	require.Contains(t, m.HTML, "Fabrica &lt;Labs&gt; GmbH, Berlin")
	require.True(t, strings.HasSuffix(m.Text, "\n-- \nFabrica <Labs> GmbH, Berlin\n"), m.Text)
	require.NotContains(t, m.HTML, "Unsubscribe")

	r.Footer.UnsubscribeURL = "https://api.test/api/v1/email/unsubscribe?t=v2.abc"
	m = renderJSON(t, r, email.TemplateWelcome, welcome)
	require.Contains(t, m.HTML, `<a href="https://api.test/api/v1/email/unsubscribe?t=v2.abc"`)
	require.Contains(t, m.Text, "Unsubscribe: https://api.test/api/v1/email/unsubscribe?t=v2.abc\n")

	m, err := email.Render(email.TemplateWelcome, mustJSON(t, welcome))
	require.NoError(t, err)
	require.NotContains(t, m.Text, "-- ")
	require.NotContains(t, m.HTML, "GmbH")
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}

func TestLifecycleTemplates(t *testing.T) {
	t.Parallel()
	r := email.Renderer{Footer: email.Footer{CompanyLegalName: "Example Ltd"}}
	at := time.Date(2026, time.May, 3, 23, 30, 0, 0, time.FixedZone("X", -2*3600)) // 4 May in UTC
	m := renderJSON(t, r, email.TemplateDeletionScheduled, email.DeletionScheduledData{Email: "ada@example.com",
		AppName: "Fabrica", HardDeleteAfter: at, SignInURL: "https://app.test/sign-in"})
	require.Equal(t, "Your Fabrica account will be deleted on 4 May 2026", m.Subject)
	for _, body := range []string{m.Text, m.HTML} {
		require.Contains(t, body, "4 May 2026")
		require.Contains(t, body, "Sign in again before")
		require.Contains(t, body, "https://app.test/sign-in")
		require.Contains(t, body, "Example Ltd")
	}
	m = renderJSON(t, r, email.TemplatePaymentFailed, email.PaymentFailedData{Email: "ada@example.com",
		AppName: "Fabrica", Tier: "pro", ManageURL: "https://app.test/billing"})
	require.Equal(t, "Your Fabrica payment failed", m.Subject)
	for _, body := range []string{m.Text, m.HTML} {
		require.Contains(t, body, "pro")
		require.Contains(t, body, "https://app.test/billing")
		require.Contains(t, body, "stays active")
	}
	require.NotRegexp(t, htmlTag, m.Text)
}
