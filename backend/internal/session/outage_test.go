package session_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/session"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

// The hole "a JWKS outage failing every request" (docs/security.md): once the cached keys were an hour old, a JWKS
// outage turned every authenticated request into a 503. The last known keys now keep verifying for a bounded window
// while fetches fail; a kid never seen does not.
func TestJWKSOutageServesLastKnownKeys(t *testing.T) {
	t.Parallel()
	e := setup(t, jwksMode, session.Config{})
	ctx := context.Background()
	verify := func(kid string) error {
		_, err := e.v.Verify(ctx, e.token(t, sessiontest.TokenClaims{UserID: "user_1", IssuedAt: e.clock.Now(), KeyID: kid}))
		return err
	}
	require.NoError(t, verify(""))
	require.Equal(t, 1, e.requests())

	e.jwks.SetDown(true)
	e.clock.Advance(time.Hour + time.Second)
	require.NoError(t, verify(""), "past the TTL the last known keys still verify during an outage")
	require.Equal(t, 2, e.requests(), "a refresh was tried")
	require.NoError(t, verify(""))
	require.Equal(t, 2, e.requests(), "refreshes stay at most one per 30s")

	// Signed by the instance's own key, but under a kid the last good JWKS did not list.
	e.clock.Advance(31 * time.Second)
	err := verify(sessiontest.RandomKeyID(t))
	require.ErrorIs(t, err, session.ErrKeysUnavailable, "an unknown kid gets no stale grace")
	require.Equal(t, 3, e.requests())

	e.clock.Advance(23 * time.Hour) // 24h00m32s after the last good fetch: inside TTL + 24h
	require.NoError(t, verify(""))
	require.Equal(t, 4, e.requests())

	e.clock.Advance(time.Hour) // 25h00m32s: past TTL + 24h
	err = verify("")
	require.ErrorIs(t, err, session.ErrKeysUnavailable, "stale keys are served for a bounded window only")
	require.NotErrorIs(t, err, session.ErrInvalidToken)
	require.Equal(t, 5, e.requests())

	e.jwks.SetDown(false)
	e.clock.Advance(31 * time.Second)
	require.NoError(t, verify(""), "Clerk is back: the next fetch restores fresh keys")
	require.Equal(t, 6, e.requests())
}

// jwksEvents records what a Verifier told its Observer.
type jwksEvents struct{ got []string }

func (o *jwksEvents) JWKSFetchFailed(stale bool) {
	o.got = append(o.got, fmt.Sprintf("failed stale=%v", stale))
}
func (o *jwksEvents) JWKSFetched() { o.got = append(o.got, "fetched") }

// An outage is visible to operators: each failed fetch is one warn line and one observer call, never a token.
func TestJWKS_OutageIsLoggedAndObserved(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	obs := &jwksEvents{}
	e := setup(t, jwksMode, session.Config{Log: slog.New(slog.NewTextHandler(&logs, nil)), Observer: obs})
	var tokens []string
	verify := func() error {
		tok := e.token(t, sessiontest.TokenClaims{UserID: "user_1", IssuedAt: e.clock.Now()})
		tokens = append(tokens, tok)
		_, err := e.v.Verify(context.Background(), tok)
		return err
	}
	require.NoError(t, verify())

	e.jwks.SetDown(true)
	e.clock.Advance(time.Hour + time.Second)
	require.NoError(t, verify())
	require.NoError(t, verify()) // inside the refetch window: no attempt, nothing to report
	e.clock.Advance(25 * time.Hour)
	require.ErrorIs(t, verify(), session.ErrKeysUnavailable)

	e.jwks.SetDown(false)
	e.clock.Advance(31 * time.Second)
	require.NoError(t, verify())

	require.Equal(t, []string{"fetched", "failed stale=true", "failed stale=false", "fetched"}, obs.got)
	out := logs.String()
	require.Equal(t, 2, strings.Count(out, "level=WARN msg=\"session: jwks fetch failed\""), out)
	require.Contains(t, out, "serving_stale_keys=true")
	require.Contains(t, out, "502 Bad Gateway")
	for _, tok := range tokens {
		require.NotContains(t, out, tok)
	}
}

// A refresh that hangs until the client timeout must not stall requests that hold a usable key meanwhile.
func TestJWKS_HangingRefreshDoesNotBlockStaleKeys(t *testing.T) {
	t.Parallel()
	e := setup(t, jwksMode, session.Config{})
	_, err := e.v.Verify(context.Background(), e.token(t, sessiontest.TokenClaims{UserID: "user_1"}))
	require.NoError(t, err)

	e.clock.Advance(time.Hour + time.Second)
	first := e.token(t, sessiontest.TokenClaims{UserID: "user_1", IssuedAt: e.clock.Now()})
	second := e.token(t, sessiontest.TokenClaims{UserID: "user_2", IssuedAt: e.clock.Now()})
	release := e.jwks.Hold(t)
	refreshed := make(chan error, 1)
	go func() {
		_, err := e.v.Verify(context.Background(), first)
		refreshed <- err
	}()
	require.Eventually(t, func() bool { return e.requests() == 2 }, 5*time.Second, time.Millisecond, "the refresh is under way")

	// Had it queued behind the refresh, the deadline would end the wait with an error.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = e.v.Verify(ctx, second)
	require.NoError(t, err, "a known kid does not wait for the refresh")

	release()
	require.NoError(t, <-refreshed)
	require.Equal(t, 2, e.requests())
}
