// Package jobstest has fakes for code that enqueues jobs; import it from tests only.
package jobstest

import (
	"context"
	"sync"

	"gorm.io/gorm"
)

// Mailer records the emails a handler enqueues, by idempotency key, instead of inserting River jobs.
type Mailer struct {
	mu   sync.Mutex
	keys []string
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
