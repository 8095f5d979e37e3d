// Package trigger builds realistic, signed sample webhook deliveries for every event type Fabrica handles and
// posts them to a running server (`fabrica trigger`, like `stripe trigger`; `fabrica seed` builds on it).
// Payloads follow the providers' documented shapes (docs/providers-setup.md, developer.paddle.com,
// clerk.com/docs); Paddle subscription events carry custom_data signed with CHECKOUT_SIGNING_SECRET exactly
// as a real checkout.
package trigger

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Event types per provider that trigger can build.
var (
	ClerkEvents  = []string{"user.created", "user.updated", "user.deleted"}
	PaddleEvents = []string{"subscription.created", "subscription.activated", "subscription.updated",
		"subscription.trialing", "subscription.paused", "subscription.resumed", "subscription.past_due",
		"subscription.canceled", "transaction.completed", "adjustment.created", "adjustment.updated"}
)

// ErrUnknownEvent means the provider or event type is not one trigger builds.
var ErrUnknownEvent = errors.New("unknown provider or event type")

// Secrets are what the server checks deliveries with (the first of each rotation list signs).
type Secrets struct {
	Paddle, Clerk string
	// Checkout keys the checkout signature in Paddle custom_data (CHECKOUT_SIGNING_SECRET).
	Checkout string
}

// Spec describes one sample event. Zero values give a coherent default: the dev user, the first paid tier,
// a subscription id derived from the user (so created, updated and canceled act on one subscription).
type Spec struct {
	Provider, Event string
	User, Email     string
	Tier            string
	// Price replaces the tier's first price on the plan item (and in the checkout signature); a price no tier
	// lists makes the delivery fail, as a real one would (fabrica seed's failed delivery).
	Price        string
	Subscription string
	// EventID is the idempotency key (Paddle event_id, Clerk svix-id); "" = a new one per call.
	EventID string
	// At is when the event occurred; zero = now.
	At time.Time
}

// Delivery is one signed request body with its headers.
type Delivery struct {
	EventID string
	Header  http.Header
	Body    []byte
}

// Builder builds deliveries against one tiers table and one set of secrets.
type Builder struct {
	Tiers   *billing.Tiers
	Secrets Secrets
	Now     func() time.Time
}

// Build returns the signed delivery spec describes.
func (b *Builder) Build(s Spec) (Delivery, error) {
	if b.Now == nil {
		b.Now = time.Now
	}
	if s.At.IsZero() {
		s.At = b.Now().UTC().Truncate(time.Millisecond)
	}
	if s.User == "" {
		s.User = "user_dev"
	}
	if s.Email == "" {
		s.Email = strings.TrimPrefix(s.User, "user_") + "@fabrica.test"
	}
	switch {
	case s.Provider == webhook.ProviderClerk && slices.Contains(ClerkEvents, s.Event):
		return b.clerk(s)
	case s.Provider == webhook.ProviderPaddle && slices.Contains(PaddleEvents, s.Event):
		return b.paddle(s)
	}
	return Delivery{}, fmt.Errorf("%w: %s %s (clerk: %s; paddle: %s)", ErrUnknownEvent, s.Provider, s.Event,
		strings.Join(ClerkEvents, ", "), strings.Join(PaddleEvents, ", "))
}

// clerk builds a Svix-signed Clerk user event: the user object as Clerk sends it, with a verified primary
// address (only a verified one is stored), and svix-id as the idempotency key.
func (b *Builder) clerk(s Spec) (Delivery, error) {
	id := s.EventID
	if id == "" {
		id = "msg_" + randomID(27)
	}
	ms := s.At.UnixMilli()
	data := map[string]any{"id": s.User, "object": "user", "deleted": true}
	if s.Event != "user.deleted" {
		data = map[string]any{"id": s.User, "object": "user", "first_name": "Dev", "last_name": "User",
			"primary_email_address_id": "idn_" + s.User,
			"email_addresses": []any{map[string]any{"id": "idn_" + s.User, "object": "email_address", "email_address": s.Email,
				"verification": map[string]any{"status": "verified", "strategy": "email_code"}, "linked_to": []any{}}},
			"public_metadata": map[string]any{}, "unsafe_metadata": map[string]any{"marketing_consent": false},
			"created_at": ms, "updated_at": ms}
	}
	body, err := json.Marshal(map[string]any{"type": s.Event, "object": "event", "timestamp": ms, "data": data,
		"instance_id": "ins_dev"})
	if err != nil {
		return Delivery{}, err
	}
	h, err := webhook.SignSvix(b.Secrets.Clerk, id, b.Now(), body)
	if err != nil {
		return Delivery{}, err
	}
	h.Set("Content-Type", "application/json")
	return Delivery{EventID: id, Header: h, Body: body}, nil
}

func randomID(n int) string {
	const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
