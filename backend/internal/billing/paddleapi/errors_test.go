package paddleapi

import (
	"errors"
	"net/http"
	"testing"

	"github.com/PaddleHQ/paddle-go-sdk/v4/pkg/paddleerr"
	"github.com/stretchr/testify/require"
)

func TestErrorsMapToSentinels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		reply    reply
		want     error
		wantCode string
	}{
		{"404 not found", reply{status: 404, body: paddleError("not_found", "Entity sub_01 not found")}, ErrNotFound, "not_found"},
		{"404 without json", reply{status: 404, body: "nope", header: map[string]string{"Content-Type": "text/plain"}}, ErrNotFound, ""},
		{"409 conflict", reply{status: 409, body: paddleError("conflict", "conflict")}, ErrConflict, "conflict"},
		{"400 locked pending changes", reply{status: 400, body: paddleError("subscription_locked_pending_changes", "locked")}, ErrConflict, "subscription_locked_pending_changes"},
		{"400 update when canceled", reply{status: 400, body: paddleError("subscription_update_when_canceled", "canceled")}, ErrConflict, "subscription_update_when_canceled"},
		{"400 must be paused", reply{status: 400, body: paddleError("subscription_must_be_paused", "not paused")}, ErrConflict, "subscription_must_be_paused"},
		{"400 invalid field", reply{status: 400, body: paddleError("invalid_field", "price_id is invalid")}, ErrRejected, "invalid_field"},
		{"401 auth", reply{status: 401, body: paddleError("authentication_malformed", "bad key")}, ErrRejected, "authentication_malformed"},
		{"403 forbidden", reply{status: 403, body: paddleError("forbidden", "missing permission")}, ErrRejected, "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, fake, w := setup(t, Config{}, tt.reply)

			err := c.CancelSubscription(t.Context(), "sub_01", false)

			require.ErrorIs(t, err, tt.want)
			require.ErrorContains(t, err, "cancel subscription: ")
			require.ErrorContains(t, err, tt.wantCode)
			require.Len(t, fake.requests(), 1, "4xx must not be retried")
			require.Empty(t, w.all())
			if tt.wantCode != "" {
				var pe *paddleerr.Error
				require.ErrorAs(t, err, &pe)
				require.Equal(t, tt.wantCode, pe.Code)
			}
		})
	}
}

func TestErrorsNeverContainAPIKey(t *testing.T) {
	t.Parallel()
	// A worst case: a proxy that echoes the credential back in its detail.
	c, _, _ := setup(t, Config{}, reply{status: http.StatusUnauthorized, body: paddleError("invalid_token", "bad token Bearer "+testKey)})

	err := c.ChangeItems(t.Context(), "sub_01", map[string]int{"pri_pro": 1}, true)

	require.ErrorIs(t, err, ErrRejected)
	require.NotContains(t, err.Error(), testKey)
	require.ErrorContains(t, err, "[redacted]")
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		code   string
		want   error
	}{
		{0, "", ErrUnavailable},
		{429, "too_many_requests", ErrUnavailable},
		{502, "bad_gateway", ErrUnavailable},
		{404, "not_found", ErrNotFound},
		{409, "", ErrConflict},
		{400, "concurrent_modification", ErrConflict},
		{400, "subscription_is_canceled_action_invalid", ErrConflict},
		{400, "bad_request", ErrRejected},
		{422, "", ErrRejected},
	}
	for _, tt := range tests {
		require.True(t, errors.Is(classify(tt.status, tt.code), tt.want), "%d %s", tt.status, tt.code)
	}
}
