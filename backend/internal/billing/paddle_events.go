package billing

import "github.com/fabrica-saas/fabrica/backend/internal/webhook"

// This file is the table of Paddle events billing acts on: to handle another event type, add its constant
// and its handler here (docs/architecture.md has the recipe).

// Paddle event types with a handler; everything else is archived as ignored.
const (
	EventSubscriptionCreated   = "subscription.created"
	EventSubscriptionActivated = "subscription.activated"
	EventSubscriptionUpdated   = "subscription.updated"
	EventSubscriptionResumed   = "subscription.resumed"
	EventSubscriptionTrialing  = "subscription.trialing"
	EventSubscriptionPaused    = "subscription.paused"
	EventSubscriptionPastDue   = "subscription.past_due"
	EventSubscriptionCanceled  = "subscription.canceled"
	// EventSubscriptionCancelled is the British spelling; Paddle sends the American one, but a handler for
	// both costs nothing and survives a docs-driven simulator.
	EventSubscriptionCancelled = "subscription.cancelled"
	EventTransactionCompleted  = "transaction.completed"
	EventAdjustmentCreated     = "adjustment.created"
	EventAdjustmentUpdated     = "adjustment.updated"
)

// PaddleHandlers is the handler table the webhook pipeline dispatches Paddle events to.
func (s *Service) PaddleHandlers() map[string]webhook.Handler {
	return map[string]webhook.Handler{
		EventSubscriptionCreated:   s.onSubscriptionCreated,
		EventSubscriptionActivated: s.onSubscriptionChanged,
		EventSubscriptionUpdated:   s.onSubscriptionChanged,
		EventSubscriptionResumed:   s.onSubscriptionChanged,
		EventSubscriptionTrialing:  s.onSubscriptionChanged,
		EventSubscriptionPaused:    s.onSubscriptionChanged,
		EventSubscriptionPastDue:   s.onSubscriptionPastDue,
		EventSubscriptionCanceled:  s.onSubscriptionCanceled,
		EventSubscriptionCancelled: s.onSubscriptionCanceled,
		EventTransactionCompleted:  s.onTransactionCompleted,
		EventAdjustmentCreated:     s.onAdjustment,
		EventAdjustmentUpdated:     s.onAdjustment,
	}
}
