package app

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// unsubscribeLink is the path and query of the link marketing mail to clerkID carries.
func (e *apiEnv) unsubscribeLink(t *testing.T, clerkID string) string {
	t.Helper()
	var u models.User
	require.NoError(t, e.db.Gorm.Where("clerk_user_id = ?", clerkID).Take(&u).Error)
	link, err := url.Parse(e.app.accounts.UnsubscribeURL(u.ID))
	require.NoError(t, err)
	return link.RequestURI()
}

// consenting gives each user a session-made account with marketing consent.
func (e *apiEnv) consenting(t *testing.T, clerkIDs ...string) {
	t.Helper()
	for _, id := range clerkIDs {
		e.runAccount(t, []accountCase{{"consent " + id, http.MethodPost, consentPath, e.token(t, id), `{"marketing":true}`, http.StatusOK, "", ""}})
	}
}

func (e *apiEnv) consentOf(t *testing.T, clerkID string) bool {
	t.Helper()
	var given bool
	require.NoError(t, e.db.Gorm.Raw(`SELECT marketing_consent_given FROM users WHERE clerk_user_id = ?`, clerkID).Scan(&given).Error)
	return given
}

// browse sends a request the way a browser or a mail provider would: no session, the given Accept header
// and, for a POST, the RFC 8058 one-click form body.
func (e *apiEnv) browse(method, target, accept string) *httptest.ResponseRecorder {
	var req *http.Request
	if method == http.MethodPost {
		req = httptest.NewRequest(method, target, strings.NewReader("List-Unsubscribe=One-Click"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, target, nil)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	e.app.Echo().ServeHTTP(rec, req)
	return rec
}

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

var (
	// No action: the form posts to the URL that showed it, token included (what a browser then sends is
	// exactly the POST of that URL).
	formRE  = regexp.MustCompile(`<form method="post">`)
	styleRE = regexp.MustCompile(`(?s)<style>(.*)</style>`)
)

// requirePage checks an unsubscribe HTML page: self-contained, and with the API's security headers except a
// CSP that allows exactly what the page uses (posting its form here, its one inline style by hash).
func requirePage(t *testing.T, rec *httptest.ResponseRecorder) string {
	t.Helper()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "text/html; charset=UTF-8", rec.Header().Get("Content-Type"))
	body := rec.Body.String()
	for _, want := range []string{`<html lang="en">`, "<title>", "<h1>", `<meta name="viewport"`} {
		require.Contains(t, body, want)
	}
	for _, never := range []string{"<script", "src=", "href=", "http://", "https://"} {
		require.NotContains(t, body, never, "no script, no external asset")
	}
	h := rec.Header()
	require.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	require.Equal(t, "DENY", h.Get("X-Frame-Options"))
	require.Equal(t, "no-referrer", h.Get("Referrer-Policy"), "the token in the URL must not leak through a Referer")
	require.Equal(t, "no-store", h.Get("Cache-Control"))
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		require.Contains(t, csp, want)
	}
	require.NotContains(t, csp, "unsafe-inline")
	style := styleRE.FindStringSubmatch(body)
	require.NotNil(t, style, "the page has its inline style")
	sum := sha256.Sum256([]byte(style[1]))
	require.Contains(t, csp, "style-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'", "the CSP allows exactly the page's style")
	return body
}

// The hole "an unsubscribe link that acts on GET or reveals the Clerk id" (docs/security.md): link scanners, previews
// and security gateways follow every GET in an email. The GET must only show a confirmation; withdrawing consent takes
// the POST.
func TestUnsubscribeGETChangesNothing(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.consenting(t, "user_u")
	link := e.unsubscribeLink(t, "user_u")
	// A scanner, a preview, the person: whatever asks, a GET only shows the page.
	var pages []*httptest.ResponseRecorder
	for _, accept := range []string{browserAccept, "", "*/*", "application/json"} {
		pages = append(pages, e.browse(http.MethodGet, link, accept))
	}
	require.True(t, e.consentOf(t, "user_u"), "GET changes nothing")
	require.Empty(t, e.accountAudits(t, account.ActionUnsubscribed))
	for _, rec := range pages {
		body := requirePage(t, rec)
		require.Regexp(t, formRE, body, "one form posting the confirmation back to this URL")
		require.Equal(t, 1, strings.Count(body, "<form"), "one form")
		require.Equal(t, 1, strings.Count(body, `<button type="submit">`), "one button")
	}

	rec := e.browse(http.MethodGet, unsubPath+"?t=v2.AAAA", browserAccept)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	require.Contains(t, rec.Body.String(), `"code":"unauthorized"`)
}

// The hole "an unsubscribe link that acts on GET or reveals the Clerk id" (docs/security.md): the POST acts: RFC 8058
// one-click from a mail provider (form body, token in the query) or the confirmation page's button. Repeats answer the
// same and write nothing.
func TestUnsubscribePOSTActsOnce(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.consenting(t, "user_u", "user_v")

	// The person: opens the link, presses the button (which posts the page's own URL).
	link := e.unsubscribeLink(t, "user_u")
	page := requirePage(t, e.browse(http.MethodGet, link, browserAccept))
	require.Regexp(t, formRE, page)
	done := requirePage(t, e.browse(http.MethodPost, link, browserAccept))
	require.Contains(t, done, "unsubscribed")
	require.NotContains(t, done, "<form", "the confirmation has nothing more to press")
	require.False(t, e.consentOf(t, "user_u"))
	// Their mail client's one-click button, later: same answer, nothing written.
	requirePage(t, e.browse(http.MethodPost, e.unsubscribeLink(t, "user_u"), ""))

	// A mail provider asking for JSON gets JSON.
	rec := e.browse(http.MethodPost, e.unsubscribeLink(t, "user_v"), "application/json")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"status":"unsubscribed"}`, rec.Body.String())
	require.False(t, e.consentOf(t, "user_v"))

	require.Equal(t, []string{`{"via": "one_click_link"}`, `{"via": "one_click_link"}`}, e.accountAudits(t, account.ActionUnsubscribed),
		"one row per user: the repeat writes nothing")
	var ips []string
	require.NoError(t, e.db.Gorm.Raw(`SELECT host(ip) FROM audit_logs WHERE action = ?`, account.ActionUnsubscribed).Scan(&ips).Error)
	require.Equal(t, []string{"192.0.2.1", "192.0.2.1"}, ips, "the requester's IP is recorded")

	rec = e.browse(http.MethodPost, unsubPath+"?t=v2.AAAA", "")
	require.Equal(t, http.StatusUnauthorized, rec.Code)
}

// The link's table: every bad token is a 401 on both methods and writes nothing; a link issued before item
// 10 (a v1 token, which named the Clerk id) keeps working. (Replaces the old TestUnsubscribeLink, which
// asserted that a GET unsubscribes.)
func TestUnsubscribeLinkTokens(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.consenting(t, "user_u", "user_v")
	otherKey := account.New(account.Deps{}, account.Config{UnsubscribeSecret: strings.Repeat("k", 40), PublicBaseURL: "https://x.test"})
	forged, err := url.Parse(otherKey.UnsubscribeURL(uuid.New()))
	require.NoError(t, err)
	v1 := func(clerkID string) string {
		m := hmac.New(sha256.New, []byte(e.app.cfg.EmailUnsubscribeSecret))
		m.Write([]byte("unsubscribe|v1|" + clerkID))
		return base64.RawURLEncoding.EncodeToString([]byte(clerkID)) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	uID, _, _ := strings.Cut(v1("user_u"), ".")
	_, vMAC, _ := strings.Cut(v1("user_v"), ".")
	for name, target := range map[string]string{
		"missing token": unsubPath, "garbage": unsubPath + "?t=abc.def", "forged v2": forged.RequestURI(),
		"v1 moved to another user": unsubPath + "?t=" + uID + "." + vMAC,
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			rec := e.browse(method, target, "")
			require.Equal(t, http.StatusUnauthorized, rec.Code, "%s %s", method, name)
			require.Contains(t, rec.Body.String(), `"code":"unauthorized"`)
			require.Equal(t, "default-src 'none'; frame-ancestors 'none'", rec.Header().Get("Content-Security-Policy"),
				"an error is JSON under the API's own CSP")
		}
	}
	require.True(t, e.consentOf(t, "user_u"))
	require.True(t, e.consentOf(t, "user_v"))

	old := unsubPath + "?t=" + url.QueryEscape(v1("user_u"))
	requirePage(t, e.browse(http.MethodGet, old, browserAccept))
	require.True(t, e.consentOf(t, "user_u"), "an old link's GET changes nothing either")
	requirePage(t, e.browse(http.MethodPost, old, ""))
	require.False(t, e.consentOf(t, "user_u"), "an old link still unsubscribes")
	require.Len(t, e.accountAudits(t, account.ActionUnsubscribed), 1)
}
