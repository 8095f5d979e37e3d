package email

import (
	"encoding/json"
	"fmt"
	"time"
)

// samples fill each template for the admin preview: realistic values, no real person's data. A test
// requires one per registered template, so a new template cannot ship without its preview.
var samples = map[string]any{
	TemplateWelcome: WelcomeData{Email: "ada@example.com", AppName: sampleApp, DashboardURL: "https://app.example.com"},
	TemplateSubscriptionStarted: SubscriptionStartedData{Email: "ada@example.com", AppName: sampleApp, Tier: "pro",
		PeriodEnd: samplePeriodEnd, Credits: 1000},
	TemplateSubscriptionCanceled: SubscriptionCanceledData{Email: "ada@example.com", AppName: sampleApp, Tier: "pro",
		AccessUntil: samplePeriodEnd},
	TemplateOpsAlert: OpsAlertData{AppName: sampleApp, Title: "A second live subscription",
		Body:   "A user has two live subscriptions; they may be charged twice.",
		Action: "Cancel one of them in the Paddle dashboard.",
		Facts:  []Fact{{Name: "user", Value: "user_2abc"}, {Name: "subscription", Value: "sub_01h"}}},
	TemplateDeletionScheduled: DeletionScheduledData{Email: "ada@example.com", AppName: sampleApp,
		HardDeleteAfter: samplePeriodEnd, SignInURL: "https://app.example.com/sign-in"},
	TemplatePaymentFailed: PaymentFailedData{Email: "ada@example.com", AppName: sampleApp, Tier: "pro",
		ManageURL: "https://app.example.com/billing"},
	TemplateUsageThreshold: UsageThresholdData{Email: "ada@example.com", AppName: sampleApp, Feature: "api_calls",
		Threshold: "limit_80", Used: 800, Limit: 1000, ResetsAt: &samplePeriodEnd, ManageURL: "https://app.example.com/billing"},
	TemplateAnnouncement: BroadcastData{AppName: sampleApp, Subject: "What's new this month",
		BodyMarkdown: "We shipped **three things** you asked for:\n\n- faster exports\n- a [status page](https://status.example.com)\n- dark mode\n\nThanks for being with us."},
}

// SampleUnsubscribeURL stands in for a recipient's link in the preview of a broadcast (a template's, or a
// draft's in the console).
const SampleUnsubscribeURL = "https://api.example.com/api/v1/email/unsubscribe?t=v2.sample"

const sampleApp = "Fabrica"

var samplePeriodEnd = time.Date(2026, time.March, 31, 0, 0, 0, 0, time.UTC)

// Preview renders template with its sample data, exactly as a send would, with r's footer (and a sample
// unsubscribe link for a broadcast template, which marketing mail carries); ErrUnknownTemplate when there
// is no such template.
func (r Renderer) Preview(template string) (Message, error) {
	sample, ok := samples[template]
	if !ok {
		if _, registered := registry[template]; !registered {
			return Message{}, fmt.Errorf("preview: %w %q", ErrUnknownTemplate, template)
		}
		return Message{}, fmt.Errorf("preview %s: no sample data", template)
	}
	raw, err := json.Marshal(sample)
	if err != nil {
		return Message{}, fmt.Errorf("preview %s: %w", template, err)
	}
	if IsBroadcastTemplate(template) && r.Footer.UnsubscribeURL == "" {
		r.Footer.UnsubscribeURL = SampleUnsubscribeURL
	}
	return r.Render(template, raw)
}
