package paddleapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	c, fake, w := setup(t, Config{},
		reply{status: 503, body: unavailable},
		reply{status: 503, body: unavailable},
		reply{status: 200, body: subscriptionOK})

	require.NoError(t, c.ChangeItems(t.Context(), "sub_01", map[string]int{"pri_pro": 1}, true))

	got := fake.requests()
	require.Len(t, got, 3)
	for _, r := range got {
		// Every attempt resends the full body (the SDK's GetBody cannot).
		require.Equal(t, got[0].Body, r.Body)
		require.NotEmpty(t, r.Body)
		require.Equal(t, "Bearer "+testKey, r.Auth)
	}
	d := w.all()
	require.Len(t, d, 2)
	require.GreaterOrEqual(t, d[0], defaultBaseDelay/2)
	require.LessOrEqual(t, d[0], defaultBaseDelay)
	require.GreaterOrEqual(t, d[1], defaultBaseDelay)
	require.LessOrEqual(t, d[1], 2*defaultBaseDelay)
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		header   string
		min, max time.Duration
	}{
		{"seconds", "2", 2 * time.Second, 2 * time.Second},
		{"capped", "120", maxDelay, maxDelay},
		{"http date", time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat), time.Second, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake, w := setup(t, Config{},
				reply{status: 429, body: tooMany, header: map[string]string{"Retry-After": tt.header}},
				reply{status: 200, body: subscriptionOK})

			require.NoError(t, c.ResumeSubscription(t.Context(), "sub_01"))

			require.Len(t, fake.requests(), 2)
			d := w.all()
			require.Len(t, d, 1)
			require.GreaterOrEqual(t, d[0], tt.min)
			require.LessOrEqual(t, d[0], tt.max)
		})
	}
}

func TestRetriesExhausted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		reply    reply
		wantCode string
	}{
		{"503 json", reply{status: 503, body: unavailable}, "service_unavailable"},
		{"502 html", reply{status: 502, body: "<html>", header: map[string]string{"Content-Type": "text/html"}}, "bad_gateway"},
		{"429", reply{status: 429, body: tooMany}, "too_many_requests"},
		{"connection dropped", reply{drop: true}, "network error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake, w := setup(t, Config{MaxRetries: 2}, tt.reply)

			err := c.CancelSubscription(t.Context(), "sub_01", true)

			require.ErrorIs(t, err, ErrUnavailable)
			require.ErrorContains(t, err, tt.wantCode)
			require.ErrorContains(t, err, "after 3 attempts")
			require.NotContains(t, err.Error(), testKey)
			require.Len(t, fake.requests(), 3)
			require.Len(t, w.all(), 2)
		})
	}
}

func TestNegativeMaxRetriesDisablesRetries(t *testing.T) {
	t.Parallel()
	c, fake, _ := setup(t, Config{MaxRetries: -1}, reply{status: 503, body: unavailable})

	err := c.RemoveScheduledChange(t.Context(), "sub_01")

	require.ErrorIs(t, err, ErrUnavailable)
	require.Len(t, fake.requests(), 1)
}

func TestNetworkFailuresAreRetried(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		first reply
	}{
		{"dropped connection", reply{drop: true}},
		{"attempt timeout", reply{hang: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := setup(t, Config{Timeout: 50 * time.Millisecond}, tt.first, reply{status: 200, body: subscriptionOK})

			require.NoError(t, c.CancelSubscription(t.Context(), "sub_01", false))

			require.Len(t, fake.requests(), 2)
		})
	}
}

func TestContextCancelStopsRetrying(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply reply
	}{
		{"while waiting to retry", reply{status: 503, body: unavailable}},
		{"during an attempt", reply{hang: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := setup(t, Config{}, tt.reply)
			c.retry.sleep = sleepCtx // really wait: up to maxDelay unless cancelled
			c.retry.baseDelay = time.Minute
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()

			start := time.Now()
			err := c.CancelSubscription(ctx, "sub_01", false)

			require.Less(t, time.Since(start), 500*time.Millisecond)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.NotErrorIs(t, err, ErrUnavailable)
			require.Len(t, fake.requests(), 1)
		})
	}
}
