package email

import (
	"embed"
	htmltemplate "html/template"
	"maps"
	"strings"
	texttemplate "text/template"
	"time"
)

//go:embed templates/*.tmpl
var templateFiles embed.FS

// Each mail has name.txt.tmpl (defining "subject" and "text") and name.html.tmpl (defining "content", set
// into layout.html.tmpl). HTML goes through html/template so user data (an email address, a name) is
// escaped, and a URL field is filtered to safe schemes; text and subject go through text/template.
var (
	templateFuncs = map[string]any{
		// Dates are shown in UTC: a job renders the mail, and the worker's local zone means nothing to the user.
		"date": func(t time.Time) string { return t.UTC().Format("2 January 2006") },
	}
	// Parsed once at package load: the files are embedded, so a parse error is a build defect, and the tests
	// fail on it long before a send could.
	welcomeTmpl              = mustParse("welcome")
	subscriptionStartedTmpl  = mustParse("subscription_started")
	subscriptionCanceledTmpl = mustParse("subscription_canceled")
	opsAlertTmpl             = mustParse("ops_alert")
	announcementTmpl         = mustParse("announcement")
)

type mailTemplate struct {
	text *texttemplate.Template
	html *htmltemplate.Template
}

func mustParse(name string) mailTemplate {
	return mailTemplate{
		text: texttemplate.Must(texttemplate.New(name).Funcs(templateFuncs).Option("missingkey=error").
			ParseFS(templateFiles, "templates/"+name+".txt.tmpl")),
		html: htmltemplate.Must(htmltemplate.New(name).Funcs(templateFuncs).Option("missingkey=error").
			ParseFS(templateFiles, "templates/layout.html.tmpl", "templates/"+name+".html.tmpl")),
	}
}

func (t mailTemplate) render(data any) (subject, text, html string, err error) {
	var b strings.Builder
	if err := t.text.ExecuteTemplate(&b, "subject", data); err != nil {
		return "", "", "", err
	}
	// A subject is one header line: collapse any line break a data field might carry.
	subject = strings.Join(strings.Fields(b.String()), " ")
	b.Reset()
	if err := t.text.ExecuteTemplate(&b, "text", data); err != nil {
		return "", "", "", err
	}
	text = b.String()
	b.Reset()
	if err := t.html.ExecuteTemplate(&b, "layout.html.tmpl", data); err != nil {
		return "", "", "", err
	}
	return subject, text, b.String(), nil
}

// WelcomeData fills the welcome mail.
type WelcomeData struct {
	Email        string
	AppName      string
	DashboardURL string
}

// Welcome renders the welcome mail.
func Welcome(d WelcomeData) (subject, text, html string, err error) {
	return welcomeTmpl.render(d)
}

// SubscriptionStartedData fills the mail sent when a subscription becomes active.
type SubscriptionStartedData struct {
	Email, AppName, Tier string
	PeriodEnd            time.Time
	Credits              int // credits granted with the subscription; 0 leaves the line out
}

// SubscriptionStarted renders the mail sent when a subscription becomes active.
func SubscriptionStarted(d SubscriptionStartedData) (subject, text, html string, err error) {
	return subscriptionStartedTmpl.render(d)
}

// SubscriptionCanceledData fills the mail sent when a subscription is canceled.
type SubscriptionCanceledData struct {
	Email, AppName, Tier string
	AccessUntil          time.Time
}

// SubscriptionCanceled renders the mail sent when a subscription is canceled.
func SubscriptionCanceled(d SubscriptionCanceledData) (subject, text, html string, err error) {
	return subscriptionCanceledTmpl.render(d)
}

// OpsAlertData fills an operators' alert: what happened, the facts to look up, what to do.
type OpsAlertData struct {
	AppName, Title, Body, Action string
	Facts                        []Fact
}

// Fact is one named value of an alert (a subscription id, a user id).
type Fact struct{ Name, Value string }

// OpsAlert renders an operators' alert.
func OpsAlert(d OpsAlertData) (subject, text, html string, err error) {
	return opsAlertTmpl.render(d)
}

// BroadcastData fills a broadcast template (IsBroadcastTemplate): the run's subject and Markdown body.
type BroadcastData struct {
	AppName      string
	Subject      string
	BodyMarkdown string
	// UnsubscribeURL, set on mail sent on the strength of marketing consent, adds the unsubscribe footer.
	UnsubscribeURL string
}

// broadcastView is what the broadcast templates see: the body rendered both ways.
type broadcastView struct {
	BroadcastData
	BodyHTML htmltemplate.HTML
	BodyText string
}

// Announcement renders the generic broadcast: the subject as its heading and the Markdown body, inside
// the layout. Raw HTML in the Markdown is dropped (see markdownHTML).
func Announcement(d BroadcastData) (subject, text, html string, err error) {
	body, err := markdownHTML(d.BodyMarkdown)
	if err != nil {
		return "", "", "", err
	}
	return announcementTmpl.render(broadcastView{BroadcastData: d, BodyHTML: body, BodyText: markdownText(d.BodyMarkdown)})
}

// WithUnsubscribe returns m with the RFC 8058 one-click unsubscribe headers that marketing mail must carry:
// List-Unsubscribe: <url> and List-Unsubscribe-Post: List-Unsubscribe=One-Click. The URL must accept a POST
// (mail providers send one, without cookies) as well as a GET. m's own Headers map is not modified.
func WithUnsubscribe(m Message, unsubscribeURL string) Message {
	h := make(map[string]string, len(m.Headers)+2)
	maps.Copy(h, m.Headers)
	h["List-Unsubscribe"] = "<" + unsubscribeURL + ">"
	h["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
	m.Headers = h
	return m
}
