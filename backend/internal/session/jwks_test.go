package session_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/session"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

func TestJWKS_CachesKeyByKID(t *testing.T) {
	t.Parallel()
	e := setup(t, jwksMode, session.Config{})
	ctx := context.Background()

	_, err := e.v.Verify(ctx, e.token(t, sessiontest.TokenClaims{UserID: "user_1"}))
	require.NoError(t, err)
	require.Equal(t, 1, e.requests())

	_, err = e.v.Verify(ctx, e.token(t, sessiontest.TokenClaims{UserID: "user_2"}))
	require.NoError(t, err)
	require.Equal(t, 1, e.requests(), "a cached kid needs no JWKS request")
}

func TestJWKS_RefetchesAfterTTL(t *testing.T) {
	t.Parallel()
	e := setup(t, jwksMode, session.Config{})
	ctx := context.Background()
	_, err := e.v.Verify(ctx, e.token(t, sessiontest.TokenClaims{UserID: "user_1"}))
	require.NoError(t, err)

	e.clock.Advance(time.Hour + time.Second)
	_, err = e.v.Verify(ctx, e.token(t, sessiontest.TokenClaims{UserID: "user_1", IssuedAt: e.clock.Now()}))
	require.NoError(t, err)
	require.Equal(t, 2, e.requests(), "keys older than an hour are fetched again")
}

// Forged tokens carry whatever kid they like; they must not turn into a stream of JWKS requests to Clerk.
func TestJWKS_UnknownKIDFetchesAtMostOncePerWindow(t *testing.T) {
	t.Parallel()
	e := setup(t, jwksMode, session.Config{})
	const n = 50
	tokens := make([]string, n)
	for i := range tokens {
		tokens[i] = e.token(t, sessiontest.TokenClaims{UserID: "user_1", KeyID: sessiontest.RandomKeyID(t)})
	}

	start := make(chan struct{})
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, tok := range tokens {
		wg.Go(func() {
			<-start
			_, errs[i] = e.v.Verify(context.Background(), tok)
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		require.ErrorIs(t, err, session.ErrInvalidToken)
		require.ErrorContains(t, err, "unknown kid")
	}
	require.Equal(t, 1, e.requests(), "concurrent unknown kids share one fetch")

	e.clock.Advance(29 * time.Second)
	_, err := e.v.Verify(context.Background(), tokens[0])
	require.ErrorIs(t, err, session.ErrInvalidToken)
	require.Equal(t, 1, e.requests(), "no refetch inside the 30s window")

	e.clock.Advance(2 * time.Second)
	_, err = e.v.Verify(context.Background(), tokens[0])
	require.ErrorIs(t, err, session.ErrInvalidToken)
	require.Equal(t, 2, e.requests(), "one refetch once the window has passed")

	// A genuine kid is still served from the refreshed cache.
	_, err = e.v.Verify(context.Background(), e.token(t, sessiontest.TokenClaims{UserID: "user_1", IssuedAt: e.clock.Now()}))
	require.NoError(t, err)
	require.Equal(t, 2, e.requests())
}

func TestJWKS_MissingKIDMakesNoRequest(t *testing.T) {
	t.Parallel()
	e := setup(t, jwksMode, session.Config{})

	_, err := e.v.Verify(context.Background(), rawToken(t, map[string]any{"alg": "RS256"}, validClaims(), []byte("sig")))
	require.ErrorIs(t, err, session.ErrInvalidToken)
	require.ErrorContains(t, err, "missing kid")
	require.Zero(t, e.requests())
}

// When Clerk cannot be reached the token is neither good nor bad: that is ErrKeysUnavailable (503), and the
// refetch limiter still applies, so an outage is not hammered either.
func TestJWKS_FetchFailureIsUnavailable(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		http.Error(w, "<html>upstream down</html>", http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	clock := newClock(t0)
	v, err := session.New(session.Config{SecretKey: sessiontest.TestSecretKey, APIURL: srv.URL + "/v1", Now: clock.Now})
	require.NoError(t, err)
	tok := sessiontest.NewIssuer(t).Token(t, sessiontest.TokenClaims{UserID: "user_1", IssuedAt: t0})

	for range 3 {
		_, err = v.Verify(context.Background(), tok)
		require.ErrorIs(t, err, session.ErrKeysUnavailable)
		require.NotErrorIs(t, err, session.ErrInvalidToken)
	}
	require.EqualValues(t, 1, requests.Load())
}

func TestJWKS_RequiresSecretKeyUpstream(t *testing.T) {
	t.Parallel()
	iss := sessiontest.NewIssuer(t)
	apiURL, requests := iss.JWKSServer(t)
	// The fake answers 401 unless the secret key is sent as a bearer, as Clerk does.
	v, err := session.New(session.Config{SecretKey: "not-a-secret-key", APIURL: apiURL})
	require.NoError(t, err)

	_, err = v.Verify(context.Background(), iss.Token(t, sessiontest.TokenClaims{UserID: "user_1"}))
	require.ErrorIs(t, err, session.ErrKeysUnavailable)
	require.Equal(t, 1, requests())
}
