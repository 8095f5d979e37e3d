package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/clerk/clerk-sdk-go/v2"
	"github.com/clerk/clerk-sdk-go/v2/jwks"
)

const (
	// keyTTL is how long fetched keys are trusted before the JWKS is fetched again (the SDK's own choice).
	keyTTL = time.Hour
	// minRefetch spaces JWKS fetches. The kid comes from an unverified header, so without this anyone could
	// make every request cost a call to Clerk (which is what clerkhttp's package-global cache allows).
	minRefetch = 30 * time.Second
)

// keySet is one Verifier's cache of Clerk's JWKS, by kid. At most one fetch runs at a time and fetches are at
// least minRefetch apart; requests that arrive during a fetch wait for it instead of starting their own.
type keySet struct {
	client *jwks.Client
	now    func() time.Time

	mu        sync.Mutex
	keys      map[string]*clerk.JSONWebKey // from the last successful fetch
	freshTill time.Time                    // keys are used without refetching until then
	lastTry   time.Time                    // start of the last fetch, successful or not
	lastErr   error                        // its error, nil on success
	inflight  chan struct{}                // non-nil while a fetch runs; closed when it ends
}

func newKeySet(client *jwks.Client, now func() time.Time) *keySet {
	return &keySet{client: client, now: now}
}

// get returns the key for kid, fetching the JWKS when kid is unknown or the keys are stale and the limiter
// allows it. An unknown kid is ErrInvalidToken; a failed fetch is ErrKeysUnavailable.
func (s *keySet) get(ctx context.Context, kid string) (*clerk.JSONWebKey, error) {
	for {
		s.mu.Lock()
		now := s.now()
		if key, ok := s.keys[kid]; ok && now.Before(s.freshTill) {
			s.mu.Unlock()
			return key, nil
		}
		if wait := s.inflight; wait != nil {
			s.mu.Unlock()
			select {
			case <-wait:
				continue // look again: the fetch may have brought the kid
			case <-ctx.Done():
				return nil, fmt.Errorf("wait for jwks: %w", ctx.Err())
			}
		}
		if !s.lastTry.IsZero() && now.Sub(s.lastTry) < minRefetch {
			err := s.lastErr
			s.mu.Unlock()
			if err != nil {
				// %.200s: on a non-JSON error page the SDK returns the whole response body as the error.
				return nil, fmt.Errorf("%w: fetch jwks: %.200s", ErrKeysUnavailable, err)
			}
			return nil, invalid("unknown kid", nil)
		}
		done := make(chan struct{})
		s.inflight, s.lastTry = done, now
		s.mu.Unlock()
		s.fetch(ctx, done)
		// The loop now finds the kid, or sees lastTry inside the window and reports why not.
	}
}

// fetch replaces the cached keys with Clerk's current JWKS and wakes the waiters, even if the client panics.
func (s *keySet) fetch(ctx context.Context, done chan struct{}) {
	var keys map[string]*clerk.JSONWebKey
	err := errors.New("jwks fetch did not complete")
	defer func() {
		s.mu.Lock()
		s.lastErr, s.inflight = err, nil
		if err == nil {
			// Replacing rather than merging drops keys Clerk has rotated out.
			s.keys, s.freshTill = keys, s.now().Add(keyTTL)
		}
		s.mu.Unlock()
		close(done)
	}()
	// Detached from the triggering request: its cancellation must neither fail the requests waiting on this
	// fetch nor use up the refetch window. The HTTP client's timeout bounds the call.
	set, err := s.client.Get(context.WithoutCancel(ctx), &jwks.GetParams{})
	if err != nil {
		return
	}
	keys = make(map[string]*clerk.JSONWebKey, len(set.Keys))
	for _, k := range set.Keys {
		if k != nil && k.KeyID != "" {
			keys[k.KeyID] = k
		}
	}
}
