package app

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// A customer checks out monthly, then switches to yearly before Paddle has delivered subscription.created
// (Paddle retries out of order): subscription.updated arrives first, carrying the checkout's custom_data
// and the yearly price. The checkout signature proves who checked out, not the plan, so the update binds
// the user like the creation would, and the late creation (older) changes nothing: the subscription ends
// on the newest snapshot, yearly, the user on pro with one month's grant, and nothing is archived failed.
// (When the signature bound the monthly price, the update failed as a forgery, archived failed and
// answered 200, never retried, and created then applied the monthly plan.)
func TestPlanChangeDeliveredBeforeItsSubscriptionIsApplied(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	rec := e.call(t, http.MethodPost, "/api/v1/billing/checkout", e.token(t, "user_switch"), `{"tier":"pro","price_id":"pri_pro_monthly"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out struct {
		CustomerID string            `json:"customer_id"`
		CustomData map[string]string `json:"custom_data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))

	t0 := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	deliverSnapshot := func(eventID, typ, price string, occurred time.Time) {
		body, err := json.Marshal(map[string]any{"event_id": eventID, "event_type": typ, "occurred_at": occurred,
			"data": map[string]any{"id": "sub_switch", "status": "active", "customer_id": out.CustomerID, "custom_data": out.CustomData,
				"current_billing_period": map[string]any{"starts_at": t0, "ends_at": t0.AddDate(0, 1, 0)},
				"items":                  []any{map[string]any{"quantity": 1, "price": map[string]any{"id": price}}}}})
		require.NoError(t, err)
		h := http.Header{}
		h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(config.DevPaddleWebhookSecret, time.Now(), body))
		rec := deliver(e.app.Echo(), webhook.ProviderPaddle, h, body)
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", typ, rec.Body.String())
	}
	deliverSnapshot("evt_switch_updated", "subscription.updated", "pri_pro_yearly", t0.Add(10*time.Minute))
	deliverSnapshot("evt_switch_created", "subscription.created", "pri_pro_monthly", t0)

	require.Zero(t, e.count(t, `SELECT count(*) FROM webhook_events WHERE processing_status = 'failed'`), "nothing archived as failed")
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM webhook_events WHERE processing_status = 'processed'`))
	var price, tier, userTier string
	require.NoError(t, e.db.Gorm.Raw(`SELECT s.paddle_price_id, s.tier, u.current_tier FROM subscriptions s JOIN users u ON u.id = s.user_id
		WHERE s.paddle_subscription_id = 'sub_switch' AND u.clerk_user_id = 'user_switch'`).Row().Scan(&price, &tier, &userTier))
	require.Equal(t, []string{"pri_pro_yearly", "pro", "pro"}, []string{price, tier, userTier}, "the newest snapshot, on its user")
	require.Equal(t, int64(1000), e.count(t, `SELECT coalesce(sum(delta), 0) FROM credit_transactions c JOIN users u ON u.id = c.user_id
		WHERE u.clerk_user_id = 'user_switch' AND c.kind = 'grant'`), "one month's allowance, once")
}
