package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

func TestBillingAPIRequiresASession(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	other := sessiontest.NewIssuer(t)
	forged := other.Token(t, sessiontest.TokenClaims{UserID: "user_a"})
	expired := e.issuer.Token(t, sessiontest.TokenClaims{UserID: "user_a", IssuedAt: time.Now().Add(-time.Hour), TTL: time.Minute})
	for _, ep := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/billing/checkout"}, {http.MethodGet, "/api/v1/billing/subscription"},
		{http.MethodPost, "/api/v1/billing/subscription/cancel"}, {http.MethodPost, "/api/v1/billing/subscription/change"},
		{http.MethodPost, "/api/v1/billing/subscription/resume"}, {http.MethodPost, "/api/v1/billing/portal"},
		{http.MethodGet, "/api/v1/billing/credits"},
	} {
		for name, tok := range map[string]string{"none": "", "forged": forged, "expired": expired, "garbage": "abc.def.ghi"} {
			rec := e.call(t, ep.method, ep.path, tok, `{}`)
			require.Equal(t, http.StatusUnauthorized, rec.Code, "%s %s with %s token", ep.method, ep.path, name)
			require.Contains(t, rec.Body.String(), `"code":"unauthorized"`)
		}
	}
	var users int
	require.NoError(t, e.db.Gorm.Raw(`SELECT count(*) FROM users`).Scan(&users).Error)
	require.Zero(t, users, "nothing unauthenticated is written")
}

func TestBillingAPI(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	e.subscribe(t, "user_pro", "active", "pro")
	e.subscribe(t, "user_paused", "paused", "pro")
	free, pro, paused := e.token(t, "user_free"), e.token(t, "user_pro"), e.token(t, "user_paused")

	for _, tc := range []struct {
		name, method, path, token, body string
		wantStatus                      int
		wantCode                        string
	}{
		{"checkout free tier", http.MethodPost, "/api/v1/billing/checkout", free, `{"tier":"free"}`, http.StatusConflict, "free_tier"},
		{"checkout unknown tier", http.MethodPost, "/api/v1/billing/checkout", free, `{"tier":"gold"}`, http.StatusUnprocessableEntity, "unknown_tier"},
		{"checkout another tier's price", http.MethodPost, "/api/v1/billing/checkout", free, `{"tier":"pro","price_id":"pri_team_monthly"}`, http.StatusUnprocessableEntity, "unknown_price"},
		{"checkout unknown price", http.MethodPost, "/api/v1/billing/checkout", free, `{"tier":"pro","price_id":"pri_nope"}`, http.StatusUnprocessableEntity, "unknown_price"},
		{"checkout malformed", http.MethodPost, "/api/v1/billing/checkout", free, `{"tier":`, http.StatusBadRequest, "bad_request"},
		{"checkout while subscribed", http.MethodPost, "/api/v1/billing/checkout", pro, `{"tier":"team"}`, http.StatusConflict, "already_subscribed"},
		{"checkout a tier and a pack", http.MethodPost, "/api/v1/billing/checkout", free, `{"tier":"pro","pack":"pri_credits_500"}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"checkout neither", http.MethodPost, "/api/v1/billing/checkout", free, `{}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"checkout a pack with a price", http.MethodPost, "/api/v1/billing/checkout", free, `{"pack":"pri_credits_500","price_id":"pri_pro_monthly"}`, http.StatusUnprocessableEntity, "validation_failed"},
		{"checkout an unknown pack", http.MethodPost, "/api/v1/billing/checkout", free, `{"pack":"pri_pro_monthly"}`, http.StatusUnprocessableEntity, "unknown_pack"},
		{"checkout a pack while subscribed", http.MethodPost, "/api/v1/billing/checkout", pro, `{"pack":"pri_credits_500"}`, http.StatusOK, ""},
		{"cancel without subscription", http.MethodPost, "/api/v1/billing/subscription/cancel", free, `{}`, http.StatusConflict, "no_subscription"},
		{"change to same tier", http.MethodPost, "/api/v1/billing/subscription/change", pro, `{"target_tier":"pro"}`, http.StatusConflict, "same_tier"},
		{"change without subscription", http.MethodPost, "/api/v1/billing/subscription/change", free, `{"target_tier":"pro"}`, http.StatusConflict, "no_subscription"},
		{"resume active", http.MethodPost, "/api/v1/billing/subscription/resume", pro, `{}`, http.StatusConflict, "not_paused"},
		{"portal without subscription", http.MethodPost, "/api/v1/billing/portal", free, `{}`, http.StatusConflict, "no_subscription"},
		{"cancel at period end", http.MethodPost, "/api/v1/billing/subscription/cancel", pro, `{}`, http.StatusAccepted, ""},
		{"cancel now", http.MethodPost, "/api/v1/billing/subscription/cancel", pro, `{"cancel_immediately":true}`, http.StatusAccepted, ""},
		{"upgrade", http.MethodPost, "/api/v1/billing/subscription/change", pro, `{"target_tier":"team"}`, http.StatusAccepted, ""},
		{"downgrade to free", http.MethodPost, "/api/v1/billing/subscription/change", pro, `{"target_tier":"free"}`, http.StatusAccepted, ""},
		{"resume paused", http.MethodPost, "/api/v1/billing/subscription/resume", paused, `{}`, http.StatusAccepted, ""},
		{"portal", http.MethodPost, "/api/v1/billing/portal", pro, `{}`, http.StatusOK, ""},
	} {
		rec := e.call(t, tc.method, tc.path, tc.token, tc.body)
		require.Equal(t, tc.wantStatus, rec.Code, "%s: %s", tc.name, rec.Body.String())
		if tc.wantCode != "" {
			require.Contains(t, rec.Body.String(), `"code":"`+tc.wantCode+`"`, tc.name)
		}
	}
	require.Equal(t, []string{
		"cancel sub_user_pro", "cancel-now sub_user_pro", "change sub_user_pro pri_team_monthly x1 prorated_immediately",
		"cancel sub_user_pro", "resume sub_user_paused", "portal ctm_user_pro sub_user_pro",
	}, e.paddle.recorded(), "only the caller's own subscription is ever touched")

	var audits []string
	require.NoError(t, e.db.Gorm.Raw(`SELECT action FROM audit_logs ORDER BY created_at, action`).Scan(&audits).Error)
	require.ElementsMatch(t, []string{"billing.cancel_requested", "billing.cancel_requested", "billing.change_requested",
		"billing.change_requested", "billing.resume_requested", "billing.customer_bound"}, audits,
		"the portal bound user_pro to the Paddle customer of their verified email")
	var status string
	require.NoError(t, e.db.Gorm.Raw(`SELECT status FROM subscriptions WHERE paddle_subscription_id = 'sub_user_pro'`).Scan(&status).Error)
	require.Equal(t, "active", status, "tables change only when Paddle's webhook says so")
}

func TestCheckoutAndSubscriptionAndCredits(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	tok := e.token(t, "user_new")
	rec := e.call(t, http.MethodPost, "/api/v1/billing/checkout", tok, `{"tier":"pro"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out struct {
		PaddlePriceID string            `json:"paddle_price_id"`
		CustomerEmail string            `json:"customer_email"`
		CustomData    map[string]string `json:"custom_data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Equal(t, "pri_pro_monthly", out.PaddlePriceID)
	require.Equal(t, "user_new@example.com", out.CustomerEmail)
	signer := billing.NewCheckoutSigner(e.app.cfg.CheckoutSigningSecret)
	require.NoError(t, signer.Verify(out.CustomData["checkout_sig"], "user_new", "user_new@example.com", time.Now()),
		"the webhook will accept this custom_data")

	rec = e.call(t, http.MethodGet, "/api/v1/billing/subscription", tok, "")
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"tier":"free","subscription":null}`, rec.Body.String(), "a user seen first through a session is created lazily")

	e.subscribe(t, "user_pro", "active", "pro")
	for n := range 3 {
		e.grant(t, "user_pro", 1000, fmt.Sprintf("g-%d", n+1))
	}
	rec = e.call(t, http.MethodGet, "/api/v1/billing/subscription", e.token(t, "user_pro"), "")
	require.Contains(t, rec.Body.String(), `"status":"active"`)
	rec = e.call(t, http.MethodGet, "/api/v1/billing/credits?limit=2", e.token(t, "user_pro"), "")
	require.Equal(t, http.StatusOK, rec.Code)
	var credits struct {
		Balance    int              `json:"balance"`
		Items      []map[string]any `json:"items"`
		NextCursor string           `json:"next_cursor"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &credits))
	require.Equal(t, 3000, credits.Balance)
	require.Len(t, credits.Items, 2)
	require.NotEmpty(t, credits.NextCursor)
	rec = e.call(t, http.MethodGet, "/api/v1/billing/credits?cursor=garbage", e.token(t, "user_pro"), "")
	require.Equal(t, http.StatusBadRequest, rec.Code)
}

// price_id picks the interval at checkout: the response carries the chosen price. The signature names the
// user, not the price: the plan comes from the subscription's items.
func TestCheckoutPicksOneOfTheTiersPrices(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	rec := e.call(t, http.MethodPost, "/api/v1/billing/checkout", e.token(t, "user_yearly"), `{"tier":"pro","price_id":"pri_pro_yearly"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var out struct {
		PaddlePriceID string            `json:"paddle_price_id"`
		CustomData    map[string]string `json:"custom_data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Equal(t, "pri_pro_yearly", out.PaddlePriceID)
	signer := billing.NewCheckoutSigner(e.app.cfg.CheckoutSigningSecret)
	sig := out.CustomData["checkout_sig"]
	require.NoError(t, signer.Verify(sig, "user_yearly", "user_yearly@example.com", time.Now()))
	require.ErrorIs(t, signer.Verify(sig, "user_other", "user_yearly@example.com", time.Now()),
		billing.ErrCheckoutSignature, "the signature binds the user")
}

func TestDeletedAccountGets410(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	require.NoError(t, e.db.Gorm.Exec(`INSERT INTO users (clerk_user_id, deleted_at) VALUES ('user_gone', now())`).Error)
	rec := e.call(t, http.MethodGet, "/api/v1/billing/subscription", e.token(t, "user_gone"), "")
	require.Equal(t, http.StatusGone, rec.Code)
	require.Contains(t, rec.Body.String(), `"code":"account_deleted"`)
}
