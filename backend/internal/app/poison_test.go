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

// A signed body may carry \u0000 (users control Paddle custom_data and Clerk unsafe_metadata). Before the
// archive stored raw bytes, the jsonb cast failed: no claim, no archive row, 500 forever. Now a payload the
// handler can use is processed and archived; one it cannot (a NUL where a column needs text) is archived
// failed with the reason and answered 200, so the provider stops retrying what can never succeed.
func TestNoVerifiedDeliveryIsUnstorable(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	signed := func(msgID string, data map[string]any) (http.Header, []byte) {
		body, err := json.Marshal(map[string]any{"type": "user.created", "object": "event", "timestamp": time.Now().UnixMilli(), "data": data})
		require.NoError(t, err)
		h, err := webhook.SignSvix(config.DevClerkWebhookSecret, msgID, time.Now(), body)
		require.NoError(t, err)
		return h, body
	}
	usable := map[string]any{"id": "user_nul", "primary_email_address_id": "idn_1",
		"email_addresses": []any{map[string]any{"id": "idn_1", "email_address": "nul@example.com", "verification": verified}},
		"unsafe_metadata": map[string]any{"note": "a\x00b"}, "updated_at": time.Now().UnixMilli()}
	h, body := signed("msg_nul_ok", usable)
	require.Contains(t, string(body), `\u0000`)
	rec := deliver(e.app.Echo(), webhook.ProviderClerk, h, body)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"event_id":"msg_nul_ok"}`, rec.Body.String())
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM users WHERE clerk_user_id = 'user_nul'`))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM webhook_events WHERE event_id = 'msg_nul_ok'
		AND processing_status = 'processed' AND body = ?`, body), "archived byte for byte")

	unusable := map[string]any{"id": "user_nul2", "primary_email_address_id": "idn_1",
		"email_addresses": []any{map[string]any{"id": "idn_1", "email_address": "nul\x00@example.com", "verification": verified}}}
	h, body = signed("msg_nul_bad", unusable)
	for range 2 {
		rec = deliver(e.app.Echo(), webhook.ProviderClerk, h, body)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.JSONEq(t, `{"event_id":"msg_nul_bad","failed":true,"reason":"unprocessable_payload"}`, rec.Body.String())
	}
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM users WHERE clerk_user_id = 'user_nul2'`))
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM processed_webhook_events WHERE event_id = 'msg_nul_bad'`),
		"no claim: a replay after a fix still processes it")
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM webhook_events WHERE event_id = 'msg_nul_bad'
		AND processing_status = 'failed' AND error_message LIKE 'unprocessable_payload: %'`))

	// The operator sees it in the forensics API, body included.
	var id string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM webhook_events WHERE event_id = 'msg_nul_bad' LIMIT 1`).Scan(&id).Error)
	rec = e.call(t, http.MethodGet, adminAPI+"/webhook-events/"+id, e.adminToken(t), "")
	require.Equal(t, http.StatusOK, rec.Code)
	view := decodeBody[map[string]any](t, rec)
	require.Equal(t, "user.created", view["payload"].(map[string]any)["type"])
	require.Len(t, view["attempts"], 2)
	require.Nil(t, view["claim"])
}
