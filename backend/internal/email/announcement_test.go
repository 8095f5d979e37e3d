package email_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/email"
)

func announce(t *testing.T, d email.BroadcastData) (subject, text, html string) {
	t.Helper()
	subject, text, html, err := email.Announcement(d)
	require.NoError(t, err)
	return subject, text, html
}

func TestAnnouncementRendersMarkdownBothWays(t *testing.T) {
	t.Parallel()
	subject, text, html := announce(t, email.BroadcastData{AppName: "Fabrica", Subject: "Spring\r\nnews",
		BodyMarkdown: "Hello **there**.\n\n- one\n- [two](https://example.com/2)\n\n1. first\n2. second\n\n> quoted\n\n```\nif a < b {}\n```"})
	require.Equal(t, "Spring news", subject, "a subject is one header line")

	require.Contains(t, html, "<strong>there</strong>")
	require.Contains(t, html, `<a href="https://example.com/2">two</a>`)
	require.Contains(t, html, "<li>one</li>")
	require.Contains(t, html, "if a &lt; b {}")
	require.Contains(t, html, "<html")

	require.NotRegexp(t, htmlTag, text)
	require.Contains(t, text, "Hello there.")
	require.Contains(t, text, "- one\n- two (https://example.com/2)")
	require.Contains(t, text, "1. first\n2. second")
	require.Contains(t, text, "> quoted")
	require.Contains(t, text, "if a < b {}")
	require.Contains(t, text, "The Fabrica team")
	require.NotContains(t, text, "Unsubscribe", "no footer without consent-based sending")
	require.NotContains(t, html, "Unsubscribe")
}

// An operator's Markdown reaches every inbox of the audience: raw HTML and script links are dropped.
func TestAnnouncementMarkdownCannotInjectHTML(t *testing.T) {
	t.Parallel()
	_, text, html := announce(t, email.BroadcastData{AppName: "Fabrica", Subject: "<b>hi</b>",
		BodyMarkdown: "<script>alert(1)</script>\n\nClick [me](javascript:alert(1)) or <img src=x onerror=alert(1)>"})
	require.NotContains(t, html, "<script")
	require.NotContains(t, html, "javascript:")
	require.NotContains(t, html, "onerror")
	require.NotContains(t, html, "<b>hi</b>")
	require.Contains(t, html, "&lt;b&gt;hi&lt;/b&gt;", "the subject heading is escaped")
	require.NotContains(t, text, "<script")
}

func TestAnnouncementFooterCarriesTheUnsubscribeLink(t *testing.T) {
	t.Parallel()
	url := "https://api.example.com/api/v1/email/unsubscribe?t=v2.abc"
	raw, err := json.Marshal(email.BroadcastData{AppName: "Fabrica", Subject: "News", BodyMarkdown: "Hi"})
	require.NoError(t, err)
	m, err := email.Renderer{Footer: email.Footer{CompanyLegalName: "Fabrica Ltd", UnsubscribeURL: url}}.Render(email.TemplateAnnouncement, raw)
	require.NoError(t, err)
	text, html := m.Text, m.HTML
	require.Contains(t, text, "Fabrica Ltd")
	require.Contains(t, html, "Fabrica Ltd")
	require.Contains(t, text, "Unsubscribe: "+url)
	require.Contains(t, html, `href="https://api.example.com/api/v1/email/unsubscribe?t=v2.abc"`)
}

// Every registered template previews (HTML and text) from its sample, through the same Render a send uses.
func TestEveryTemplateHasAPreview(t *testing.T) {
	t.Parallel()
	names := email.Templates()
	require.Contains(t, names, email.TemplateAnnouncement)
	for _, name := range names {
		m, err := email.Renderer{Footer: email.Footer{CompanyLegalName: "Fabrica Ltd"}}.Preview(name)
		require.NoError(t, err, "%s needs a sample in samples.go", name)
		require.NotEmpty(t, m.Subject, name)
		require.NotEmpty(t, m.Text, name)
		require.Contains(t, m.HTML, "<html", name)
		require.NotRegexp(t, htmlTag, m.Text, name)
	}
	_, err := email.Renderer{}.Preview("nope")
	require.ErrorIs(t, err, email.ErrUnknownTemplate)
	_, err = email.Render("nope", json.RawMessage(`{}`))
	require.ErrorIs(t, err, email.ErrUnknownTemplate)
}

func TestOnlyBroadcastTemplatesAreBroadcastable(t *testing.T) {
	t.Parallel()
	require.True(t, email.IsBroadcastTemplate(email.TemplateAnnouncement))
	require.False(t, email.IsBroadcastTemplate(email.TemplateWelcome))
	require.False(t, email.IsBroadcastTemplate("nope"))
}
