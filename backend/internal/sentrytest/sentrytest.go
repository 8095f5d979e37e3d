// Package sentrytest replaces Sentry's transport in tests: the events a client would have sent, recorded.
package sentrytest

import (
	"context"
	"sync"
	"time"

	"github.com/getsentry/sentry-go"
)

// Transport records every event instead of sending it (sentry.ClientOptions.Transport).
type Transport struct {
	mu     sync.Mutex
	events []*sentry.Event
}

func (r *Transport) Configure(sentry.ClientOptions)        {}
func (r *Transport) Flush(time.Duration) bool              { return true }
func (r *Transport) FlushWithContext(context.Context) bool { return true }
func (r *Transport) Close()                                {}

func (r *Transport) SendEvent(e *sentry.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// Events returns a copy of what was sent so far.
func (r *Transport) Events() []*sentry.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*sentry.Event(nil), r.events...)
}
