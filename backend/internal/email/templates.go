package email

import (
	"embed"
	"encoding/json"
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
		// The footer's values are bound per render (see render); these stand-ins only let the files parse.
		"companyLegalName": func() string { return "" },
		"unsubscribeURL":   func() string { return "" },
	}
	// Parsed once at package load: the files are embedded, so a parse error is a build defect, and the tests
	// fail on it long before a send could.
	welcomeTmpl              = mustParse("welcome")
	subscriptionStartedTmpl  = mustParse("subscription_started")
	subscriptionCanceledTmpl = mustParse("subscription_canceled")
	opsAlertTmpl             = mustParse("ops_alert")
	deletionScheduledTmpl    = mustParse("deletion_scheduled")
	paymentFailedTmpl        = mustParse("payment_failed")
	announcementTmpl         = mustParse("announcement")
)

// Footer is what every email ends with: the legal name of the company (COMPANY_LEGAL_NAME) and, for
// marketing mail, the unsubscribe link. It comes from the sender's configuration at render time, not from
// the job's data, so a queued job renders with the current name. Zero fields are left out.
type Footer struct {
	CompanyLegalName string
	UnsubscribeURL   string
}

// text is the plain-text footer, after a signature separator.
func (f Footer) text() string {
	var b strings.Builder
	if f.CompanyLegalName != "" || f.UnsubscribeURL != "" {
		b.WriteString("\n-- \n")
	}
	if f.CompanyLegalName != "" {
		b.WriteString(f.CompanyLegalName + "\n")
	}
	if f.UnsubscribeURL != "" {
		b.WriteString("Unsubscribe: " + f.UnsubscribeURL + "\n")
	}
	return b.String()
}

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
	return t.renderWith(data, Footer{})
}

// renderWith renders with footer f. The parsed html template is never executed itself: each render
// executes a clone whose footer functions return f's values (html/template escapes them in context).
func (t mailTemplate) renderWith(data any, f Footer) (subject, text, html string, err error) {
	page, err := t.html.Clone()
	if err != nil {
		return "", "", "", err
	}
	page.Funcs(map[string]any{
		"companyLegalName": func() string { return f.CompanyLegalName },
		"unsubscribeURL":   func() string { return f.UnsubscribeURL },
	})
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
	text = b.String() + f.text()
	b.Reset()
	if err := page.ExecuteTemplate(&b, "layout.html.tmpl", data); err != nil {
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

// DeletionScheduledData fills the mail sent when a user deletes their account.
type DeletionScheduledData struct {
	Email, AppName string
	// HardDeleteAfter is when the account is erased for good unless the user signs in before.
	HardDeleteAfter time.Time
	// SignInURL is where signing in again restores the account.
	SignInURL string
}

// DeletionScheduled renders the mail sent when a user deletes their account.
func DeletionScheduled(d DeletionScheduledData) (subject, text, html string, err error) {
	return deletionScheduledTmpl.render(d)
}

// PaymentFailedData fills the mail sent when a renewal payment fails (the subscription is past_due).
type PaymentFailedData struct {
	Email, AppName, Tier string
	// ManageURL is where the user updates their payment method.
	ManageURL string
}

// PaymentFailed renders the mail sent when a renewal payment fails.
func PaymentFailed(d PaymentFailedData) (subject, text, html string, err error) {
	return paymentFailedTmpl.render(d)
}

// BroadcastData fills a broadcast template (IsBroadcastTemplate): the run's subject and Markdown body. The
// unsubscribe link of mail sent on marketing consent is the footer's (Footer.UnsubscribeURL), as for
// every other template.
type BroadcastData struct {
	AppName      string
	Subject      string
	BodyMarkdown string
}

// broadcastView is what the broadcast templates see: the body rendered both ways.
type broadcastView struct {
	BroadcastData
	BodyHTML htmltemplate.HTML
	BodyText string
}

// Announcement renders the generic broadcast without a footer: the subject as its heading and the
// Markdown body, inside the layout. Raw HTML in the Markdown is dropped (see markdownHTML).
func Announcement(d BroadcastData) (subject, text, html string, err error) {
	return announcementWith(d, Footer{})
}

func announcementWith(d BroadcastData, f Footer) (subject, text, html string, err error) {
	body, err := markdownHTML(d.BodyMarkdown)
	if err != nil {
		return "", "", "", err
	}
	return announcementTmpl.renderWith(broadcastView{BroadcastData: d, BodyHTML: body, BodyText: markdownText(d.BodyMarkdown)}, f)
}

func renderAnnouncement(data json.RawMessage, f Footer) (string, string, string, error) {
	var d BroadcastData
	if err := json.Unmarshal(data, &d); err != nil {
		return "", "", "", err
	}
	return announcementWith(d, f)
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
