package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/clerk/clerk-sdk-go/v2"
	"github.com/clerk/clerk-sdk-go/v2/jwks"
)

const (
	// keyTTL is how long fetched keys are trusted before the JWKS is fetched again (the SDK's own choice).
	keyTTL = time.Hour
	// maxStale is how long past keyTTL the last fetched keys keep verifying while fetches fail: a Clerk or
	// network outage must not sign every user out, but a key Clerk has since withdrawn must not live forever.
	maxStale = 24 * time.Hour
	// minRefetch spaces JWKS fetches. The kid comes from an unverified header, so without this anyone could
	// make every request cost a call to Clerk (which is what clerkhttp's package-global cache allows).
	minRefetch = 30 * time.Second
)

// Log keys.
const (
	keyError        = "error"
	keyServingStale = "serving_stale_keys"
	keyKeysAge      = "keys_age"
)

// Observer hears how the JWKS cache fares, for metrics. Its methods are called outside the cache's lock, once
// per fetch, from the request that made it.
type Observer interface {
	// JWKSFetchFailed reports a failed fetch. servingStale says whether the last fetched keys, past keyTTL but
	// inside the stale window, keep verifying tokens meanwhile.
	JWKSFetchFailed(servingStale bool)
	// JWKSFetched reports a successful fetch: the keys are fresh again.
	JWKSFetched()
}

type nopObserver struct{}

func (nopObserver) JWKSFetchFailed(bool) {}
func (nopObserver) JWKSFetched()         {}

// keySet is one Verifier's cache of Clerk's JWKS, by kid. At most one fetch runs at a time and fetches are at
// least minRefetch apart; requests that arrive during a fetch wait for it instead of starting their own, unless
// they already hold a usable key.
type keySet struct {
	client *jwks.Client
	now    func() time.Time
	log    *slog.Logger
	obs    Observer

	mu        sync.Mutex
	keys      map[string]*clerk.JSONWebKey // from the last successful fetch
	fetchedAt time.Time                    // of keys: fresh for keyTTL, then usable for maxStale while fetches fail
	lastTry   time.Time                    // start of the last fetch, successful or not
	lastErr   error                        // its error, nil on success
	inflight  chan struct{}                // non-nil while a fetch runs; closed when it ends
}

func newKeySet(client *jwks.Client, now func() time.Time, log *slog.Logger, obs Observer) *keySet {
	if obs == nil {
		obs = nopObserver{}
	}
	return &keySet{client: client, now: now, log: log, obs: obs}
}

// get returns the key for kid, fetching the JWKS when kid is unknown or the keys are past keyTTL and the limiter
// allows it. While fetches fail, a known kid is served from the last fetched keys for up to maxStale past
// keyTTL. An unknown kid is ErrInvalidToken; a failed fetch with no usable key is ErrKeysUnavailable.
func (s *keySet) get(ctx context.Context, kid string) (*clerk.JSONWebKey, error) {
	for {
		s.mu.Lock()
		now := s.now()
		key, known := s.keys[kid]
		age := now.Sub(s.fetchedAt)
		// A negative age is a clock moved back (development's `fabrica dev clock reset`): not fresh.
		if known && age >= 0 && age < keyTTL {
			s.mu.Unlock()
			return key, nil
		}
		// A kid the last good JWKS listed was Clerk's a moment ago; a kid it did not list gets no such grace.
		usable := known && age < keyTTL+maxStale
		if wait := s.inflight; wait != nil {
			s.mu.Unlock()
			if usable {
				// Do not queue behind a refresh that may hang until the client timeout during an outage.
				return key, nil
			}
			select {
			case <-wait:
				continue // look again: the fetch may have brought the kid
			case <-ctx.Done():
				return nil, fmt.Errorf("wait for jwks: %w", ctx.Err())
			}
		}
		if since := now.Sub(s.lastTry); !s.lastTry.IsZero() && since >= 0 && since < minRefetch {
			err := s.lastErr
			s.mu.Unlock()
			switch {
			case usable:
				// Only reachable after a failed fetch: a successful one inside the window left the keys fresh.
				return key, nil
			case err != nil:
				return nil, fmt.Errorf("%w: fetch jwks: %s", ErrKeysUnavailable, errText(err))
			default:
				return nil, invalid("unknown kid", nil)
			}
		}
		done := make(chan struct{})
		s.inflight, s.lastTry = done, now
		s.mu.Unlock()
		s.fetch(ctx, done)
		// The loop now finds the kid, or sees lastTry inside the window and reports why not.
	}
}

// fetch replaces the cached keys with Clerk's current JWKS and wakes the waiters, even if the client panics.
// A failure keeps the previous keys (get decides how long they stay usable) and is logged and observed once.
func (s *keySet) fetch(ctx context.Context, done chan struct{}) {
	var keys map[string]*clerk.JSONWebKey
	err := errors.New("jwks fetch did not complete")
	defer func() {
		s.mu.Lock()
		s.lastErr, s.inflight = err, nil
		if err == nil {
			// Replacing rather than merging drops keys Clerk has rotated out.
			s.keys, s.fetchedAt = keys, s.now()
		}
		haveKeys, age := s.keys != nil, s.now().Sub(s.fetchedAt)
		s.mu.Unlock()
		stale := haveKeys && age >= keyTTL && age < keyTTL+maxStale
		close(done)
		if err == nil {
			s.obs.JWKSFetched()
			return
		}
		attrs := []any{keyError, errText(err), keyServingStale, stale}
		if haveKeys {
			attrs = append(attrs, keyKeysAge, age.Round(time.Second).String())
		}
		s.log.Warn("session: jwks fetch failed", attrs...)
		s.obs.JWKSFetchFailed(stale)
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

// errText bounds a fetch error for errors and logs: on a non-JSON error page the SDK returns the whole response
// body as the error. It never contains a token: the fetch sends none.
func errText(err error) string { return fmt.Sprintf("%.200s", err) }
