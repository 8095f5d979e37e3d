// Package jobstest has fakes for code that enqueues jobs; import it from tests only.
package jobstest

import (
	"context"
	"sync"

	"gorm.io/gorm"
)

// Mailer records the jobs a handler enqueues instead of inserting River jobs: emails by idempotency key,
// Paddle cancellations by subscription id.
type Mailer struct {
	mu      sync.Mutex
	keys    []string
	cancels []string
}

// EnqueueCancelSubscriptionTx records the subscription id.
func (m *Mailer) EnqueueCancelSubscriptionTx(_ context.Context, _ *gorm.DB, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cancels = append(m.cancels, id)
	return nil
}

// Cancels returns the subscription ids whose cancellation was enqueued, in order.
func (m *Mailer) Cancels() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.cancels...)
}

// EnqueueEmailTx records key.
func (m *Mailer) EnqueueEmailTx(_ context.Context, _ *gorm.DB, _, _, key string, _ any) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys = append(m.keys, key)
	return nil
}

// Keys returns the idempotency keys enqueued so far, in order.
func (m *Mailer) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.keys...)
}
