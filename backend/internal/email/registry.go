package email

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Template names: an email job stores the name and the template's data, and the worker renders at send
// time (so a fixed template reaches jobs still queued).
const (
	TemplateWelcome              = "welcome"
	TemplateSubscriptionStarted  = "subscription_started"
	TemplateSubscriptionCanceled = "subscription_canceled"
	// TemplateOpsAlert tells the operators (ADMIN_EMAILS) about something only a person can resolve.
	TemplateOpsAlert = "ops_alert"
	// TemplateDeletionScheduled confirms an account deletion: the erasure date, and how to restore.
	TemplateDeletionScheduled = "deletion_scheduled"
	// TemplatePaymentFailed tells the user a renewal payment failed (subscription past_due).
	TemplatePaymentFailed = "payment_failed"
	// TemplateAnnouncement is the generic broadcast: a subject and a Markdown body (BroadcastData).
	TemplateAnnouncement = "announcement"
)

// ErrUnknownTemplate means no template has the name.
var ErrUnknownTemplate = errors.New("unknown email template")

// broadcastTemplate is what a broadcast may do with a template that renders a BroadcastData.
type broadcastTemplate struct {
	// fixedWording: every word the recipient reads is the template's (no operator-written subject or body
	// reaches the mail), so what it says is transactional by construction, and only such a template may be
	// sent without the recipients' marketing consent (bypass_consent).
	fixedWording bool
}

// broadcastTemplates are the templates a broadcast run may name. The announcement is free-form (the
// operator writes its subject and Markdown body), so it is always sent on consent, with an unsubscribe link:
// a free-form body could say anything, a sale included. A template with fixed wording (a notice of changed
// terms, say) is added here with fixedWording set; none ships.
var broadcastTemplates = map[string]broadcastTemplate{TemplateAnnouncement: {}}

// IsBroadcastTemplate reports whether a broadcast may use the template.
func IsBroadcastTemplate(name string) bool {
	_, ok := broadcastTemplates[name]
	return ok
}

// MayBypassConsent reports whether a broadcast of the template may be sent without the recipients'
// marketing consent: only a broadcast template with fixed wording may.
func MayBypassConsent(name string) bool { return broadcastTemplates[name].fixedWording }

// BroadcastTemplates names the templates a broadcast may use, sorted (the console's compose form).
func BroadcastTemplates() []string { return slices.Sorted(maps.Keys(broadcastTemplates)) }

// BypassTemplates names the broadcast templates that may bypass consent (MayBypassConsent), sorted.
func BypassTemplates() []string {
	var out []string
	for name, t := range broadcastTemplates {
		if t.fixedWording {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

type renderFunc func(data json.RawMessage, f Footer) (subject, text, html string, err error)

// decodeInto adapts a typed template to JSON-encoded data.
func decodeInto[T any](t mailTemplate) renderFunc {
	return func(data json.RawMessage, f Footer) (string, string, string, error) {
		var d T
		if err := json.Unmarshal(data, &d); err != nil {
			return "", "", "", err
		}
		return t.renderWith(d, f)
	}
}

var registry = map[string]renderFunc{
	TemplateWelcome:              decodeInto[WelcomeData](welcomeTmpl),
	TemplateSubscriptionStarted:  decodeInto[SubscriptionStartedData](subscriptionStartedTmpl),
	TemplateSubscriptionCanceled: decodeInto[SubscriptionCanceledData](subscriptionCanceledTmpl),
	TemplateOpsAlert:             decodeInto[OpsAlertData](opsAlertTmpl),
	TemplateDeletionScheduled:    decodeInto[DeletionScheduledData](deletionScheduledTmpl),
	TemplatePaymentFailed:        decodeInto[PaymentFailedData](paymentFailedTmpl),
	TemplateAnnouncement:         renderAnnouncement,
	TemplateUsageThreshold:       decodeInto[UsageThresholdData](usageThresholdTmpl),
}

// Render builds the message for template from its JSON data, without a footer; the caller sets To and
// IdempotencyKey. Renderer.Render adds the footer.
func Render(template string, data json.RawMessage) (Message, error) {
	return Renderer{}.Render(template, data)
}

// Renderer renders templates with the deployment's footer (the email worker has one, built from the
// configuration).
type Renderer struct {
	Footer Footer
}

// Render builds the message for template from its JSON data, footer included.
func (r Renderer) Render(template string, data json.RawMessage) (Message, error) {
	render, ok := registry[template]
	if !ok {
		return Message{}, fmt.Errorf("%w %q", ErrUnknownTemplate, template)
	}
	subject, text, html, err := render(data, r.Footer)
	if err != nil {
		return Message{}, fmt.Errorf("render %s: %w", template, err)
	}
	return Message{Subject: subject, Text: text, HTML: html}, nil
}

// Templates lists every template name, sorted.
func Templates() []string { return slices.Sorted(maps.Keys(registry)) }
