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
	// TemplateAnnouncement is the generic broadcast: a subject and a Markdown body (BroadcastData).
	TemplateAnnouncement = "announcement"
)

// ErrUnknownTemplate means no template has the name.
var ErrUnknownTemplate = errors.New("unknown email template")

// broadcastTemplates are the templates a broadcast run may name: each renders a BroadcastData.
var broadcastTemplates = map[string]bool{TemplateAnnouncement: true}

// IsBroadcastTemplate reports whether a broadcast may use the template.
func IsBroadcastTemplate(name string) bool { return broadcastTemplates[name] }

type renderFunc func(data json.RawMessage) (subject, text, html string, err error)

// decodeInto adapts a typed template to JSON-encoded data.
func decodeInto[T any](render func(T) (string, string, string, error)) renderFunc {
	return func(data json.RawMessage) (string, string, string, error) {
		var d T
		if err := json.Unmarshal(data, &d); err != nil {
			return "", "", "", err
		}
		return render(d)
	}
}

var registry = map[string]renderFunc{
	TemplateWelcome:              decodeInto(Welcome),
	TemplateSubscriptionStarted:  decodeInto(SubscriptionStarted),
	TemplateSubscriptionCanceled: decodeInto(SubscriptionCanceled),
	TemplateOpsAlert:             decodeInto(OpsAlert),
	TemplateAnnouncement:         decodeInto(Announcement),
}

// Render builds the message for template from its JSON data; the caller sets To and IdempotencyKey.
func Render(template string, data json.RawMessage) (Message, error) {
	r, ok := registry[template]
	if !ok {
		return Message{}, fmt.Errorf("%w %q", ErrUnknownTemplate, template)
	}
	subject, text, html, err := r(data)
	if err != nil {
		return Message{}, fmt.Errorf("render %s: %w", template, err)
	}
	return Message{Subject: subject, Text: text, HTML: html}, nil
}

// Templates lists every template name, sorted.
func Templates() []string { return slices.Sorted(maps.Keys(registry)) }
