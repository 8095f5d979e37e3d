package paddleapi

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"missing url", Config{APIKey: testKey}, "PADDLE_API_URL is required"},
		{"missing key", Config{BaseURL: "https://sandbox-api.paddle.com"}, "PADDLE_API_KEY is required"},
		{"relative url", Config{BaseURL: "sandbox-api.paddle.com", APIKey: testKey}, "absolute http(s) URL"},
		{"path prefix", Config{BaseURL: "https://proxy.example/paddle", APIKey: testKey}, "must not have a path"},
		{"ok", Config{BaseURL: "https://sandbox-api.paddle.com/", APIKey: testKey}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(tt.cfg)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.NotContains(t, err.Error(), testKey)
				return
			}
			require.NoError(t, err)
			require.Equal(t, defaultMaxRetries, c.retry.maxRetries)
			require.Equal(t, defaultTimeout, c.retry.http.Timeout)
		})
	}
}

func TestCallsSendPaddleRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		call       func(context.Context, *Client) error
		wantMethod string
		wantPath   string
		wantBody   string
	}{
		{
			name:       "cancel at period end",
			call:       func(ctx context.Context, c *Client) error { return c.CancelSubscription(ctx, "sub_01", false) },
			wantMethod: http.MethodPost, wantPath: "/subscriptions/sub_01/cancel",
			wantBody: `{"effective_from":"next_billing_period"}`,
		},
		{
			name:       "cancel immediately",
			call:       func(ctx context.Context, c *Client) error { return c.CancelSubscription(ctx, "sub_01", true) },
			wantMethod: http.MethodPost, wantPath: "/subscriptions/sub_01/cancel",
			wantBody: `{"effective_from":"immediately"}`,
		},
		{
			name: "change items: an upgrade is charged now, or not at all",
			call: func(ctx context.Context, c *Client) error {
				return c.ChangeItems(ctx, "sub_01", map[string]int{"pri_team": 10, "pri_addon": 2}, true)
			},
			wantMethod: http.MethodPatch, wantPath: "/subscriptions/sub_01",
			wantBody: `{"items":[{"price_id":"pri_addon","quantity":2},{"price_id":"pri_team","quantity":10}],"proration_billing_mode":"prorated_immediately","on_payment_failure":"prevent_change"}`,
		},
		{
			name: "change items: a downgrade bills nothing and credits nothing",
			call: func(ctx context.Context, c *Client) error {
				return c.ChangeItems(ctx, "sub_01", map[string]int{"pri_pro": 1}, false)
			},
			wantMethod: http.MethodPatch, wantPath: "/subscriptions/sub_01",
			wantBody: `{"items":[{"price_id":"pri_pro","quantity":1}],"proration_billing_mode":"do_not_bill"}`,
		},
		{
			name:       "resume",
			call:       func(ctx context.Context, c *Client) error { return c.ResumeSubscription(ctx, "sub_01") },
			wantMethod: http.MethodPost, wantPath: "/subscriptions/sub_01/resume",
			wantBody: `{"effective_from":"immediately"}`,
		},
		{
			name:       "remove scheduled change",
			call:       func(ctx context.Context, c *Client) error { return c.RemoveScheduledChange(ctx, "sub_01") },
			wantMethod: http.MethodPatch, wantPath: "/subscriptions/sub_01",
			wantBody: `{"scheduled_change":null}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake, _ := setup(t, Config{}, reply{status: http.StatusOK, body: subscriptionOK})

			require.NoError(t, tt.call(t.Context(), c))

			got := fake.requests()
			require.Len(t, got, 1)
			require.Equal(t, tt.wantMethod, got[0].Method)
			require.Equal(t, tt.wantPath, got[0].Path)
			require.Equal(t, "Bearer "+testKey, got[0].Auth)
			require.Equal(t, "application/json", got[0].ContentType)
			require.JSONEq(t, tt.wantBody, got[0].Body)
		})
	}
}

func TestPortalURL(t *testing.T) {
	t.Parallel()
	const session = `{"data":{"id":"cpls_01","customer_id":"ctm_01","urls":{"general":` +
		`{"overview":"https://customer-portal.paddle.com/cpl_01?action=overview&token=pga_tmp"},` +
		`"subscriptions":[{"id":"sub_01","cancel_subscription":"https://x/cancel","update_subscription_payment_method":"https://x/pm"}]},` +
		`"created_at":"2024-10-25T06:53:58Z"},"meta":{"request_id":"req_p"}}`
	c, fake, _ := setup(t, Config{}, reply{status: http.StatusCreated, body: session})

	url, err := c.PortalURL(t.Context(), "ctm_01", []string{"sub_01", "sub_02"})

	require.NoError(t, err)
	require.Equal(t, "https://customer-portal.paddle.com/cpl_01?action=overview&token=pga_tmp", url)
	got := fake.requests()
	require.Len(t, got, 1)
	require.Equal(t, http.MethodPost, got[0].Method)
	require.Equal(t, "/customers/ctm_01/portal-sessions", got[0].Path)
	require.Equal(t, "Bearer "+testKey, got[0].Auth)
	require.JSONEq(t, `{"subscription_ids":["sub_01","sub_02"]}`, got[0].Body)
}

func TestPortalURLWithoutSubscriptionsSendsNoBody(t *testing.T) {
	t.Parallel()
	// The SDK drops a body that encodes to "{}"; Paddle treats
	// subscription_ids as optional, so an empty POST is what it gets.
	const session = `{"data":{"id":"cpls_01","urls":{"general":{"overview":"https://portal/o"}}},"meta":{"request_id":"r"}}`
	c, fake, _ := setup(t, Config{}, reply{status: http.StatusCreated, body: session})

	url, err := c.PortalURL(t.Context(), "ctm_01", nil)

	require.NoError(t, err)
	require.Equal(t, "https://portal/o", url)
	require.Empty(t, fake.requests()[0].Body)
}

func TestPortalURLMissingOverviewIsAnError(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t, Config{}, reply{status: http.StatusCreated, body: `{"data":{"id":"cpls_01"},"meta":{}}`})

	_, err := c.PortalURL(t.Context(), "ctm_01", nil)

	require.ErrorContains(t, err, "no overview url")
}

func TestUndecodableSuccessStillCountsForActions(t *testing.T) {
	t.Parallel()
	// Paddle acted; webhooks carry the new state, so a body we cannot read
	// must not turn an applied cancel into a reported failure.
	c, _, _ := setup(t, Config{}, reply{status: http.StatusOK, body: `not json`})

	require.NoError(t, c.CancelSubscription(t.Context(), "sub_01", false))
}

func TestClientIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	c, fake, _ := setup(t, Config{}, reply{status: http.StatusOK, body: subscriptionOK})
	const n = 20
	start := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			<-start
			errs <- c.CancelSubscription(t.Context(), "sub_01", false)
		})
	}
	close(start)
	wg.Wait()
	close(errs)

	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, fake.requests(), n)
}
