package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// eraseAll runs the daily erasure as if the grace period were over for every soft-deleted account.
func (e *apiEnv) eraseAll(t *testing.T) {
	t.Helper()
	n, err := e.app.accounts.HardDeleteExpired(context.Background(), time.Now().Add(e.app.cfg.AccountDeletionGrace+time.Hour), 100)
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

// The hole "an erased user resurrected by a late event" (docs/security.md): a replay of user.created (a new svix id:
// Svix's dashboard resend, or a delivery retried past the erasure) must not bring an erased user back, nor re-grant the
// signup credits, nor send a second welcome.
func TestErasedUserIsNotResurrectedByALateUserCreated(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	h := e.app.Echo()
	send := func(msgID, typ string) *httptest.ResponseRecorder {
		hdr, body := clerkEvent(t, msgID, typ, "user_gone", "gone@example.com", time.Now().UnixMilli())
		return deliver(h, webhook.ProviderClerk, hdr, body)
	}
	require.Equal(t, http.StatusOK, send("msg_created", "user.created").Code)
	require.Equal(t, http.StatusOK, send("msg_deleted", "user.deleted").Code)
	e.eraseAll(t)
	before := countAll(t, e.db)
	require.Equal(t, int64(0), before.Users)

	for _, ev := range []struct{ id, typ string }{
		{"msg_created_replay", "user.created"}, {"msg_updated_late", "user.updated"}, {"msg_deleted_late", "user.deleted"},
	} {
		rec := send(ev.id, ev.typ)
		require.Equal(t, http.StatusOK, rec.Code, "%s: the delivery succeeds (Svix would retry anything else): %s", ev.typ, rec.Body.String())
	}
	after := countAll(t, e.db)
	require.Zero(t, after.Users, "no user row comes back")
	require.Zero(t, after.Grants, "no signup credits again")
	require.Equal(t, before.EmailJobs, after.EmailJobs, "no second welcome email")
	require.Equal(t, before.Audits, after.Audits, "the skipped events have no effect at all")
	require.Equal(t, before.Processed+3, after.Processed, "each late event is processed (with no effect), not failed")
	require.Zero(t, after.Failed)
}

// The hole "an erased user resurrected by a late event" (docs/security.md): a Clerk session of an erased user (the
// Clerk identity outlives our erasure) must not lazily create a fresh, empty account: every request answers 410,
// however fresh the sign-in.
func TestErasedUserSessionIsRefused(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	tok := e.token(t, "user_erased")
	e.runAccount(t, []accountCase{
		{"lazy user", http.MethodGet, mePath, tok, "", http.StatusOK, "", ""},
		{"delete", http.MethodDelete, mePath, tok, "", http.StatusOK, "", ""},
	})
	e.eraseAll(t)
	fresh := e.accountSignedInAt(t, "user_erased", time.Now().Add(time.Second))
	for _, ep := range accountEndpoints {
		for name, tok := range map[string]string{"old session": tok, "fresh sign-in": fresh} {
			e.runAccount(t, []accountCase{{name + " " + ep.method + " " + ep.path, ep.method, ep.path, tok, ep.body, http.StatusGone, "account_deleted", ""}})
		}
	}
	require.Zero(t, countAll(t, e.db).Users, "no lazy user was created")
}

// The hole "an erased user resurrected by a late event" (docs/security.md): a Paddle event whose signed checkout data
// names an erased user (a late retry or a dashboard replay) fails instead of creating the user from the signature; the
// archive says why.
func TestErasedUserIsNotRecreatedFromCheckoutData(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	tok := e.token(t, "user_paid")
	e.runAccount(t, []accountCase{
		{"lazy user", http.MethodGet, mePath, tok, "", http.StatusOK, "", ""},
		{"delete", http.MethodDelete, mePath, tok, "", http.StatusOK, "", ""},
	})
	e.eraseAll(t)

	now := time.Now().UTC()
	sig := billing.NewCheckoutSigner(e.app.cfg.CheckoutSigningSecret).Sign("user_paid", "user_paid@example.com", now.Add(-time.Minute))
	body, err := json.Marshal(map[string]any{"event_id": "evt_late", "event_type": "subscription.created", "occurred_at": now,
		"data": map[string]any{"id": "sub_late", "status": "active", "customer_id": "ctm_late",
			"current_billing_period": map[string]any{"starts_at": now, "ends_at": now.AddDate(0, 1, 0)},
			"items":                  []any{map[string]any{"price": map[string]any{"id": "pri_pro_monthly"}}},
			"custom_data":            map[string]any{"clerk_user_id": "user_paid", "email": "user_paid@example.com", "checkout_sig": sig}}})
	require.NoError(t, err)
	hdr := http.Header{}
	hdr.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(config.DevPaddleWebhookSecret, time.Now(), body))
	rec := deliver(e.app.Echo(), webhook.ProviderPaddle, hdr, body)
	require.Equal(t, http.StatusInternalServerError, rec.Code, rec.Body.String())

	c := countAll(t, e.db)
	require.Zero(t, c.Users, "the signed checkout data does not recreate the user")
	var archived string
	require.NoError(t, e.db.Gorm.Raw(`SELECT coalesce(error_message, '') FROM webhook_events WHERE event_id = 'evt_late'`).Scan(&archived).Error)
	require.Contains(t, archived, "erased")
}
