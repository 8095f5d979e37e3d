package paddleapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"strings"
)

// Dev stands in for Paddle's API in development when no PADDLE_API_KEY is set, so checkout, the portal and
// customer.* events can be tried locally: a user is bound to a deterministic development customer
// (ctm_dev_ + a hash of the email, the same on every machine and every run), the portal URL is a
// placeholder under .invalid, and a management call (cancel, change, resume) is logged instead of sent —
// deliver the webhook Paddle would send with `fabrica trigger`. It is never built outside development.
type Dev struct{ log *slog.Logger }

// NewDev returns the development stand-in.
func NewDev(log *slog.Logger) *Dev { return &Dev{log: log} }

// DevCustomerID is the development customer of email.
func DevCustomerID(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return "ctm_dev_" + hex.EncodeToString(sum[:])[:20]
}

// EnsureCustomer returns the email's development customer.
func (d *Dev) EnsureCustomer(_ context.Context, email string) (string, error) {
	return DevCustomerID(email), nil
}

// PortalURL returns a placeholder: there is no portal without Paddle.
func (d *Dev) PortalURL(_ context.Context, customerID string, _ []string) (string, error) {
	return "https://paddle-portal.invalid/" + customerID, nil
}

// CancelSubscription logs what Paddle would have been asked.
func (d *Dev) CancelSubscription(_ context.Context, subscriptionID string, immediately bool) error {
	d.sent("cancel subscription", "subscription", subscriptionID, "immediately", immediately)
	return nil
}

// ChangeItems logs what Paddle would have been asked.
func (d *Dev) ChangeItems(_ context.Context, subscriptionID string, items map[string]int, upgrade bool) error {
	d.sent("change items", "subscription", subscriptionID, "items", items, "upgrade", upgrade)
	return nil
}

// ResumeSubscription logs what Paddle would have been asked.
func (d *Dev) ResumeSubscription(_ context.Context, subscriptionID string) error {
	d.sent("resume subscription", "subscription", subscriptionID)
	return nil
}

func (d *Dev) sent(call string, args ...any) {
	d.log.Info("development: not sent to Paddle (no PADDLE_API_KEY); deliver the webhook it would cause with `fabrica trigger`",
		append([]any{"call", call}, args...)...)
}
