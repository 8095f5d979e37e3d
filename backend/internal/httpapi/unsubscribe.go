package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// The unsubscribe link (public: the token in the query is its authentication). GET only shows a
// confirmation page: link scanners, previews and mail security gateways follow every link in an email,
// and acting on their visit would unsubscribe people who never asked. POST acts: the mail provider's
// RFC 8058 one-click (a form body "List-Unsubscribe=One-Click", the token in the URL) or the page's button.
// A bad token answers 401 with the usual JSON error, like every other endpoint.

// pageCSS is the pages' one inline style; the pages' CSP allows exactly it, by hash.
const pageCSS = `body{margin:0;padding:2rem 1rem;font:1.125rem/1.5 system-ui,sans-serif;color:#1b1b1b;background:#fff}` +
	`main{max-width:34rem;margin:0 auto}h1{font-size:1.6rem;line-height:1.25}` +
	`button{font:inherit;padding:.7rem 1.4rem;border:2px solid #1b1b1b;border-radius:.4rem;background:#1b1b1b;color:#fff;cursor:pointer}` +
	`button:focus-visible{outline:3px solid #1a5fd0;outline-offset:3px}`

// pageCSP replaces the API's `default-src 'none'` on these pages only: the style above by its hash, the
// form may post back here, and still nothing may frame the page, load anything or move its base URL.
var pageCSP = func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}()

// The form has no action: it posts to the very URL that showed it, token included, whatever proxy or
// path prefix stands in front of us. No JavaScript, no external assets, readable on a phone.
var unsubscribePages = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p>{{.Text}}</p>
{{- if .Confirm}}
<form method="post">
<button type="submit">Unsubscribe</button>
</form>
{{- end}}
</main>
</body>
</html>
`))

type unsubscribePage struct {
	Title, Text string
	Confirm     bool
	CSS         template.CSS
}

var (
	confirmPage = unsubscribePage{Title: "Unsubscribe from marketing email?", Confirm: true,
		Text: "Press the button to stop receiving marketing email. Emails about your account, such as receipts, still arrive."}
	donePage = unsubscribePage{Title: "You are unsubscribed",
		Text: "You will receive no more marketing email. Emails about your account, such as receipts, still arrive."}
)

// confirmUnsubscribe (GET) checks the token and shows the confirmation; it changes nothing.
func (h *accountHandler) confirmUnsubscribe(c echo.Context) error {
	if err := h.accounts.VerifyUnsubscribeToken(c.QueryParam("t")); err != nil {
		return err
	}
	return renderPage(c, confirmPage)
}

// unsubscribe (POST) withdraws the consent. The form body carries nothing we need (RFC 8058's
// List-Unsubscribe=One-Click, or the page's empty form): the token is read from the URL only.
func (h *accountHandler) unsubscribe(c echo.Context) error {
	if err := h.accounts.Unsubscribe(c.Request().Context(), c.QueryParam("t"), c.RealIP()); err != nil {
		return err
	}
	if wantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]string{"status": "unsubscribed"})
	}
	return renderPage(c, donePage)
}

// wantsJSON: a client that asks for JSON and not for HTML (a mail provider's or a script's POST); browsers
// and Accept-less one-click requests get the page (RFC 8058 only needs a 2xx).
func wantsJSON(c echo.Context) bool {
	accept := c.Request().Header.Get(echo.HeaderAccept)
	return strings.Contains(accept, echo.MIMEApplicationJSON) && !strings.Contains(accept, "text/html")
}

func renderPage(c echo.Context, p unsubscribePage) error {
	p.CSS = template.CSS(pageCSS)
	var buf bytes.Buffer
	if err := unsubscribePages.Execute(&buf, p); err != nil {
		return err
	}
	// Only the CSP changes: the other security headers (nosniff, frame DENY, no-referrer, no-store) stay.
	c.Response().Header().Set("Content-Security-Policy", pageCSP)
	return c.HTMLBlob(http.StatusOK, buf.Bytes())
}
