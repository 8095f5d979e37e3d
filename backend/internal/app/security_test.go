package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// paddleSubscription builds a signed subscription event for subID of customerID.
// Its billing period is the calendar month of occurred, so the snapshots of one test share one period (as
// Paddle's do) and grant its month once.
func paddleSubscription(t *testing.T, eventID, typ, subID, customerID string, occurred time.Time, customData map[string]any) (http.Header, []byte) {
	t.Helper()
	start := time.Date(occurred.Year(), occurred.Month(), 1, 0, 0, 0, 0, time.UTC)
	body, err := json.Marshal(map[string]any{"event_id": eventID, "event_type": typ, "occurred_at": occurred, "data": map[string]any{
		"id": subID, "status": "active", "customer_id": customerID, "custom_data": customData,
		"current_billing_period": map[string]any{"starts_at": start, "ends_at": start.AddDate(0, 1, 0)},
		"items":                  []any{map[string]any{"price": map[string]any{"id": "pri_pro_monthly"}}},
	}})
	require.NoError(t, err)
	h := http.Header{}
	h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(config.DevPaddleWebhookSecret, time.Now(), body))
	return h, body
}

type checkoutOut struct {
	CustomerID string            `json:"customer_id"`
	CustomData map[string]string `json:"custom_data"`
}

// The hole "another customer's portal" (docs/security.md): a checkout binds the user to the Paddle customer our own API
// call finds or creates for their verified email, returns it for Paddle.js, and reuses the binding afterwards. No
// verified email: no checkout.
func TestCheckoutBindsThePaddleCustomer(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	tok := e.token(t, "user_ada")
	rec := e.call(t, http.MethodPost, "/api/v1/billing/checkout", tok, `{"tier":"pro"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	out := decodeBody[checkoutOut](t, rec)
	require.Equal(t, "ctm_user_ada", out.CustomerID)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM users WHERE clerk_user_id = 'user_ada' AND paddle_customer_id = 'ctm_user_ada'`))
	require.Equal(t, http.StatusOK, e.call(t, http.MethodPost, "/api/v1/billing/checkout", tok, `{"tier":"pro"}`).Code)
	require.Equal(t, []string{"user_ada@example.com"}, e.paddle.customers, "the binding is made once, then reused")

	unverified := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_unv", SessionID: "sess_unv", Email: "unv@example.com"})
	rec = e.call(t, http.MethodPost, "/api/v1/billing/checkout", unverified, `{"tier":"pro"}`)
	require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"code":"email_unverified"`)

	// A row stored before migration 00009 keeps its address but is marked unverified: no customer is
	// found or created for an address nobody checked.
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO users (clerk_user_id, email, email_verified) VALUES ('user_legacy', 'legacy@example.com', false)`).Error)
	legacy := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_legacy", SessionID: "sess_legacy"})
	rec = e.call(t, http.MethodPost, "/api/v1/billing/checkout", legacy, `{"tier":"pro"}`)
	require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	require.Equal(t, []string{"user_ada@example.com"}, e.paddle.customers, "no customer for the unverified address")
}

// The hole "another customer's portal" (docs/security.md): a signed checkout completed in Paddle.js under a victim's
// email lands on the victim's Paddle customer. The subscription is recorded (money was taken) but flagged and audited
// once, and the portal opens the attacker's own bound customer, never the victim's.
func TestAnotherCustomersPortalIsNeverOpened(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	att := e.token(t, "user_att")
	rec := e.call(t, http.MethodPost, "/api/v1/billing/checkout", att, `{"tier":"pro"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	cd := decodeBody[checkoutOut](t, rec).CustomData
	signed := map[string]any{"clerk_user_id": cd["clerk_user_id"], "email": cd["email"], "checkout_sig": cd["checkout_sig"]}

	now := time.Now().UTC().Truncate(time.Second)
	for i, typ := range []string{"subscription.created", "subscription.updated", "subscription.updated"} {
		h, body := paddleSubscription(t, "evt_att_"+string(rune('a'+i)), typ, "sub_att", "ctm_victim", now.Add(time.Duration(i)*time.Second), signed)
		require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderPaddle, h, body).Code)
	}
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM subscriptions WHERE paddle_subscription_id = 'sub_att' AND customer_mismatch`),
		"recorded and flagged")
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = ?`, billing.ActionCustomerMismatch), "audited once")

	rec = e.call(t, http.MethodPost, "/api/v1/billing/portal", att, `{}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, []string{"portal ctm_user_att "}, e.paddle.recorded(), "the attacker's own customer, without the flagged subscription")
	require.NotContains(t, rec.Body.String(), "ctm_victim")

	var uid string
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_att'`).Scan(&uid).Error)
	rec = e.call(t, http.MethodGet, adminAPI+"/users/"+uid, e.adminToken(t), "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `"flags":["customer_mismatch"]`, "operators see the flag")
}

// The hole "admin by an unverified email" (docs/security.md): only a verified email makes an admin by email, an
// unverified primary address is never stored, and operators can pin admins by Clerk user id.
func TestAdminByUnverifiedEmailIsRefused(t *testing.T) {
	t.Parallel()
	d := newAdminEnv(t).db
	e := &apiEnv{db: d, issuer: sessiontest.NewIssuer(t), paddle: &fakePaddle{}}
	e.app = appOn(t, d, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "ADMIN_EMAILS": "boss@example.com",
		"ADMIN_CLERK_USER_IDS": "user_pinned"}, Options{PaddleAPI: e.paddle})
	stats := adminAPI + "/stats"

	// A session that claims the admin's address without Clerk vouching for it.
	claimed := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_claim", SessionID: "s1", Email: "boss@example.com"})
	require.Equal(t, http.StatusForbidden, e.call(t, http.MethodGet, stats, claimed, "").Code)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM users WHERE clerk_user_id = 'user_claim' AND email = '' AND NOT email_verified`),
		"an unverified address is not stored")

	// Clerk's webhook: the primary address is unverified, a verified one is listed first.
	h, body := clerkUserWithAddresses(t, "msg_1", "user_hook", []clerkAddress{{"idn_1", "other@example.com", true}, {"idn_2", "boss@example.com", false}}, "idn_2")
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderClerk, h, body).Code)
	hook := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_hook", SessionID: "s2"})
	require.Equal(t, http.StatusForbidden, e.call(t, http.MethodGet, stats, hook, "").Code)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM users WHERE clerk_user_id = 'user_hook' AND email = ''`),
		"neither the unverified primary nor the first listed address is stored")

	// A row stored before migration 00009, whose address nobody checked: the migration marks it unverified,
	// and the gate reads the mark, not only the address.
	require.NoError(t, d.Gorm.Exec(`INSERT INTO users (clerk_user_id, email, email_verified) VALUES ('user_legacy', 'boss@example.com', false)`).Error)
	legacy := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_legacy", SessionID: "s5"})
	require.Equal(t, http.StatusForbidden, e.call(t, http.MethodGet, stats, legacy, "").Code)

	verified := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_real", SessionID: "s3", Email: "Boss@Example.com", EmailVerified: true})
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, stats, verified, "").Code, "a verified address counts")
	pinned := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_pinned", SessionID: "s4"})
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, stats, pinned, "").Code, "a pinned Clerk id counts")
}

type clerkAddress struct {
	id, addr string
	verified bool
}

func clerkUserWithAddresses(t *testing.T, msgID, clerkID string, addrs []clerkAddress, primary string) (http.Header, []byte) {
	t.Helper()
	var list []map[string]any
	for _, a := range addrs {
		v := map[string]any{"status": "unverified"}
		if a.verified {
			v["status"] = "verified"
		}
		list = append(list, map[string]any{"id": a.id, "email_address": a.addr, "verification": v})
	}
	body, err := json.Marshal(map[string]any{"type": "user.created", "object": "event", "timestamp": time.Now().UnixMilli(),
		"data": map[string]any{"id": clerkID, "object": "user", "primary_email_address_id": primary, "email_addresses": list,
			"updated_at": time.Now().UnixMilli()}})
	require.NoError(t, err)
	h, err := webhook.SignSvix(config.DevClerkWebhookSecret, msgID, time.Now(), body)
	require.NoError(t, err)
	return h, body
}

// The hole "refused admin requests growing the audit trail" (docs/security.md): a burst of refused admin requests from
// a user, all at once across two instances, writes one audit row; a minute later the next refusal is recorded again.
func TestRefusedAdminRequestsAreAuditedOncePerMinute(t *testing.T) {
	t.Parallel()
	e := newAdminEnv(t)
	second := appOn(t, e.db, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "ADMIN_EMAILS": "boss@example.com"},
		Options{PaddleAPI: e.paddle})
	// Six refused users at once, thirty requests each over the two instances: each user's burst is one
	// row. Several users race in one burst so that a missing lock loses more than one coin toss.
	const users, each = 6, 30
	toks := make([]string, users)
	for u := range toks {
		toks[u] = e.token(t, fmt.Sprintf("user_mallory_%d", u))
		require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/account/me", toks[u], "").Code) // the lazy user exists
	}
	codes := concurrently(users*each, func(i int) int {
		h := e.app.Echo()
		if i%2 == 1 {
			h = second.Echo()
		}
		req := httptest.NewRequest(http.MethodGet, adminAPI+"/users", nil)
		req.Header.Set("Authorization", "Bearer "+toks[i%users])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	})
	for _, c := range codes {
		require.Equal(t, http.StatusForbidden, c)
	}
	require.Equal(t, int64(users), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.unauthorized'`))
	require.Equal(t, int64(users), e.count(t, `SELECT count(DISTINCT user_id) FROM audit_logs WHERE action = 'admin.unauthorized'`))

	tok := toks[0]
	require.NoError(t, e.db.Gorm.Exec(`UPDATE audit_logs SET created_at = now() - interval '61 seconds'`).Error)
	require.Equal(t, http.StatusForbidden, e.call(t, http.MethodGet, adminAPI+"/users", tok, "").Code)
	require.Equal(t, int64(users+1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.unauthorized'`))
}

// The hole "client IPs taken from any forwarded header" (docs/security.md): the audit trail records the client's IP.
// Without TRUSTED_PROXIES forwarded headers are ignored (anyone can send them); with it, X-Forwarded-For is believed
// only as far as the listed proxies vouch.
func TestClientIPsComeFromTrustedProxiesOnly(t *testing.T) {
	t.Parallel()
	consentIP := func(e *apiEnv, clerkID, xff string) string {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "/api/v1/account/me/consent", strings.NewReader(`{"marketing":true}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e.token(t, clerkID))
		req.Header.Set("X-Forwarded-For", xff)
		req.Header.Set("X-Real-IP", "198.51.100.99")
		rec := httptest.NewRecorder()
		e.app.Echo().ServeHTTP(rec, req) // httptest's RemoteAddr is 192.0.2.1:1234
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var ip string
		require.NoError(t, e.db.Gorm.Raw(`SELECT host(ip) FROM audit_logs WHERE action = 'account.consent_updated'
			AND resource_id = ?`, clerkID).Scan(&ip).Error)
		return ip
	}
	direct := newAPIEnv(t)
	require.Equal(t, "192.0.2.1", consentIP(direct, "user_a", "203.0.113.9"), "no trusted proxy: the socket address")

	behind := &apiEnv{db: direct.db, issuer: direct.issuer, paddle: &fakePaddle{}}
	behind.app = appOn(t, direct.db, map[string]string{"CLERK_JWT_KEY": direct.issuer.PublicKeyPEM(),
		"TRUSTED_PROXIES": "192.0.2.0/24"}, Options{PaddleAPI: behind.paddle})
	require.Equal(t, "203.0.113.9", consentIP(behind, "user_b", "203.0.113.9"), "the proxy's word")
	require.Equal(t, "203.0.113.9", consentIP(behind, "user_c", "198.51.100.7, 203.0.113.9"),
		"a client-written entry left of the one the proxy appended is not believed")
}

// productionEnv is a complete production configuration that passes the boot guard, sessions verified with
// issuer's key.
func productionEnv(issuer *sessiontest.Issuer) map[string]string {
	return map[string]string{"APP_ENV": "production",
		"PADDLE_WEBHOOK_SECRET": "pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI",
		"CLERK_WEBHOOK_SECRET":  "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "CLERK_JWT_KEY": issuer.PublicKeyPEM(),
		"CLERK_AUTHORIZED_PARTIES": "https://app.example.com", "PADDLE_API_KEY": "pdl_live_apikey_01abcdefghijklmnopqrstuvwx",
		"CHECKOUT_SIGNING_SECRET": strings.Repeat("c", 32), "EMAIL_UNSUBSCRIBE_SECRET": strings.Repeat("u", 40),
		"EMAIL_DRIVER": "resend", "RESEND_API_KEY": "re_live_123456", "PUBLIC_BASE_URL": "https://api.example.com",
		"METRICS_TOKEN": strings.Repeat("m", 32), "ERASURE_TOMBSTONE_KEY": strings.Repeat("e", 32),
		"COMPANY_LEGAL_NAME": "Example Software GmbH"}
}

// Local identity: production never reads (or creates) the dev key, and a dev token is refused there like
// any forged token; development with no Clerk key accepts it.
func TestDevTokensAreDevelopmentOnly(t *testing.T) {
	t.Parallel()
	d := newAdminEnv(t).db
	dir := t.TempDir()
	devKey, err := devauth.LoadOrCreateKey(filepath.Join(dir, "dev.pem"))
	require.NoError(t, err)
	tok, err := devauth.Token(devKey, devauth.Claims{UserID: "user_dev", Email: "dev@fabrica.test", TTL: time.Minute}, time.Now())
	require.NoError(t, err)
	me := func(a *App) int {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/account/me", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		rec := httptest.NewRecorder()
		a.Echo().ServeHTTP(rec, req)
		return rec.Code
	}

	prodKeyFile := filepath.Join(dir, "never", "dev.pem")
	env := productionEnv(sessiontest.NewIssuer(t))
	env["DEV_SESSION_KEY_FILE"] = prodKeyFile
	prod := appOn(t, d, env, Options{})
	require.Equal(t, http.StatusUnauthorized, me(prod), "a dev token is a forged token in production")
	_, err = os.Stat(prodKeyFile)
	require.ErrorIs(t, err, os.ErrNotExist, "production never reads or creates the dev key")

	dev := appOn(t, d, map[string]string{"APP_ENV": "development", "DEV_SESSION_KEY_FILE": filepath.Join(dir, "dev.pem")}, Options{})
	require.Equal(t, http.StatusOK, me(dev), "development without a Clerk key accepts it")
}
