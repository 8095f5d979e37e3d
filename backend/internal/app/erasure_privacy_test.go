package app

import (
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// After the hard delete nothing we keep names the user: their audit rows have no IPs and the tombstone hash
// where the Clerk id was (the failure record of a delivery that named them included), and every archived
// webhook body that carried their Clerk id or address is redacted (found through the archived subjects,
// or, for a row archived before subjects existed, through its bytes). The rows and the claims stay;
// another user's deliveries are untouched; a redacted delivery cannot be replayed.
func TestErasureLeavesNothingThatIdentifiesTheUser(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	unverified(e.db, "archive rows from before subjects existed are planted by hand, without their claims")
	h := e.app.Echo()
	now := time.Now()
	for _, u := range []struct{ id, mail string }{{"user_forget", "Forget@Example.com"}, {"user_keep", "keep@example.com"}} {
		hdr, body := clerkEvent(t, "msg_"+u.id, "user.created", u.id, u.mail, now.UnixMilli())
		require.Equal(t, http.StatusOK, deliver(h, webhook.ProviderClerk, hdr, body).Code)
	}
	tok := e.token(t, "user_forget")
	e.runAccount(t, []accountCase{{"consent", http.MethodPost, consentPath, tok, `{"marketing":true}`, http.StatusOK, "", ""}})
	// A forged checkout naming the user: archived failed, its error and its audit row quote the Clerk id.
	body, err := json.Marshal(map[string]any{"event_id": "evt_forged", "event_type": "subscription.created", "occurred_at": now,
		"data": map[string]any{"id": "sub_forged", "status": "active", "customer_id": "ctm_forged",
			"items":       []any{map[string]any{"price": map[string]any{"id": "pri_pro_monthly"}}},
			"custom_data": map[string]any{"clerk_user_id": "user_forget", "email": "forget@example.com", "checkout_sig": "1.00"}}})
	require.NoError(t, err)
	hdr := http.Header{}
	hdr.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(config.DevPaddleWebhookSecret, time.Now(), body))
	require.Equal(t, http.StatusOK, deliver(h, webhook.ProviderPaddle, hdr, body).Code)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'webhook.failed' AND details::text LIKE '%user_forget%'`))
	// Rows archived before the archive recorded subjects.
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO webhook_events (provider, event_id, event_type, body, processing_status)
		VALUES ('clerk', 'msg_legacy_forget', 'user.updated', convert_to('{"data":{"id":"user_forget"}}', 'UTF8'), 'processed'),
		       ('clerk', 'msg_legacy_keep', 'user.updated', convert_to('{"data":{"id":"user_keep"}}', 'UTF8'), 'processed')`).Error)
	require.Positive(t, e.count(t, `SELECT count(*) FROM audit_logs a JOIN users u ON u.id = a.user_id
		WHERE u.clerk_user_id = 'user_forget' AND a.ip IS NOT NULL`), "the user's own requests carry their IP")
	var userID string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id::text FROM users WHERE clerk_user_id = 'user_forget'`).Scan(&userID).Error)
	archived, claims := e.count(t, `SELECT count(*) FROM webhook_events`), e.count(t, `SELECT count(*) FROM processed_webhook_events`)

	e.runAccount(t, []accountCase{{"delete", http.MethodDelete, mePath, tok, "", http.StatusOK, "", ""}})
	e.eraseAll(t)

	require.Zero(t, e.count(t, `SELECT count(*) FROM audit_logs WHERE user_id = ? AND ip IS NOT NULL`, userID), "no IPs")
	require.Zero(t, e.count(t, `SELECT count(*) FROM audit_logs WHERE actor || resource_id || details::text ILIKE '%forget%'`),
		"neither the Clerk id nor the address, in any audit row")
	var standIn string
	require.NoError(t, e.db.Gorm.Raw(`SELECT resource_id FROM audit_logs WHERE action = 'user.hard_deleted'`).Scan(&standIn).Error)
	require.Regexp(t, regexp.MustCompile(`^erased:[0-9a-f]{64}$`), standIn)
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM audit_logs WHERE actor = 'user:' || ?`, standIn),
		"the user's own rows (the consent, the deletion) now name the tombstone")

	require.Zero(t, e.count(t, `SELECT count(*) FROM webhook_events
		WHERE position('forget' IN lower(encode(body, 'escape'))) > 0 OR error_message LIKE '%forget%'`), "no body names the user")
	require.Equal(t, int64(3), e.count(t, `SELECT count(*) FROM webhook_events WHERE redacted_at IS NOT NULL
		AND signature IS NULL AND subjects = '{}' AND convert_from(body, 'UTF8')::jsonb ->> 'redacted' = 'erasure'`),
		"user.created, the forged checkout and the old row: each a marker now, without its signature")
	require.Equal(t, archived, e.count(t, `SELECT count(*) FROM webhook_events`), "every row stays")
	require.Equal(t, claims, e.count(t, `SELECT count(*) FROM processed_webhook_events`), "every claim stays")
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM webhook_events WHERE redacted_at IS NULL
		AND position('user_keep' IN encode(body, 'escape')) > 0`), "another user's deliveries are untouched")

	var forged string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id::text FROM webhook_events WHERE event_id = 'evt_forged'`).Scan(&forged).Error)
	rec := e.call(t, http.MethodPost, adminAPI+"/webhook-events/"+forged+"/replay", e.adminToken(t), "")
	require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"code":"delivery_redacted"`)
}
