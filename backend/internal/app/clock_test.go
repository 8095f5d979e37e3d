package app

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Every time-dependent decision reads the one clock app builds: with the clock fixed years ahead, a
// webhook signed at the machine's time is stale and one signed at the clock's is fresh, so are session
// tokens, and the ledger, the checkout signature and the deletion are stamped with the clock's time.
func TestEveryDecisionReadsTheAppsClock(t *testing.T) {
	t.Parallel()
	at := time.Date(2031, 5, 1, 12, 0, 0, 0, time.UTC)
	d := pgtest.New(t)
	e := &apiEnv{db: d, issuer: sessiontest.NewIssuer(t), paddle: &fakePaddle{}}
	e.app = appOn(t, d, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM()},
		Options{PaddleAPI: e.paddle, Clock: clock.Func(func() time.Time { return at })})

	b := triggerBuilder(t, e.app)
	spec := trigger.Spec{Provider: webhook.ProviderClerk, Event: "user.created", User: "user_far", Email: "far@example.com",
		EventID: "msg_far_1", At: at}
	b.Now = time.Now
	stale, err := b.Build(spec)
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, deliver(e.app.Echo(), "clerk", stale.Header, stale.Body).Code,
		"signed at the machine's time: stale for the app's clock")
	b.Now = func() time.Time { return at }
	fresh, err := b.Build(spec)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), "clerk", fresh.Header, fresh.Body).Code)

	claims := sessiontest.TokenClaims{UserID: "user_far", SessionID: "sess_far", Email: "far@example.com", EmailVerified: true}
	require.Equal(t, http.StatusUnauthorized, e.call(t, http.MethodGet, "/api/v1/account/me", e.issuer.Token(t, claims), "").Code,
		"a token of the machine's time")
	claims.IssuedAt = at
	tok := e.issuer.Token(t, claims)
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/account/me", tok, "").Code)

	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM credit_transactions WHERE created_at = ?`, at),
		"the signup grant is stamped with the clock's time")

	rec := e.call(t, http.MethodPost, "/api/v1/billing/checkout", tok, `{"tier":"pro"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var co struct {
		CustomData map[string]string `json:"custom_data"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &co))
	require.Contains(t, co.CustomData["checkout_sig"], strconv.FormatInt(at.Unix(), 10)+".", "signed at the clock's time")

	require.Equal(t, http.StatusOK, e.call(t, http.MethodDelete, "/api/v1/account/me", tok, "").Code)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM users WHERE clerk_user_id = 'user_far' AND deleted_at = ?`, at),
		"the deletion's grace starts at the clock's time")
}

// Development's clock, moved through the API by an operator: stored for every process (a second App on the
// same database tells the new time when the call returns), the due tasks run before the answer (the
// month's pro allowance expires), tokens follow the clock, and reset returns to the machine's time. An App
// that is not development ignores the stored offset and has no /dev routes.
func TestTheDevelopmentClockMovesEveryProcessAndRunsWhatCameDue(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	issuer := sessiontest.NewIssuer(t)
	env := map[string]string{"APP_ENV": "development", "CLERK_JWT_KEY": issuer.PublicKeyPEM(), "ADMIN_EMAILS": "ops@example.com"}
	web, worker := appOn(t, d, env, Options{}), appOn(t, d, env, Options{})
	e := &apiEnv{app: web, db: d, issuer: issuer}
	admin := func(at time.Time) string {
		return issuer.Token(t, sessiontest.TokenClaims{UserID: "user_ops", SessionID: "sess_ops", Email: "ops@example.com",
			EmailVerified: true, IssuedAt: at})
	}

	b := triggerBuilder(t, web)
	for _, s := range []trigger.Spec{{Provider: "clerk", Event: "user.created", User: "user_pro"},
		{Provider: "paddle", Event: "subscription.created", User: "user_pro", Tier: "pro"}} {
		del, err := b.Build(s)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, deliver(web.Echo(), s.Provider, del.Header, del.Body).Code)
	}

	rec := e.call(t, http.MethodPost, "/api/v1/dev/clock", admin(time.Now()), `{"advance":"2mo"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	moved := decodeBody[struct {
		Now   time.Time `json:"now"`
		Moved bool      `json:"moved"`
		Tasks []struct {
			Name   string         `json:"name"`
			Report map[string]int `json:"report"`
		} `json:"tasks"`
	}](t, rec)
	require.True(t, moved.Moved)
	require.WithinDuration(t, time.Now().AddDate(0, 2, 0), moved.Now, 5*time.Second)
	ran := map[string]map[string]int{}
	for _, r := range moved.Tasks {
		ran[r.Name] = r.Report
	}
	require.Equal(t, 1000, ran["expire-credits"]["credits"], "the month's pro allowance (rollover none) expired: %v", ran)
	require.Contains(t, ran, "monthly-grants")
	require.NotContains(t, ran, "purge-archive", "storage keeps the machine's time")
	require.WithinDuration(t, moved.Now, worker.Clock().Now(), 5*time.Second, "the other process tells the new time")

	require.Equal(t, http.StatusUnauthorized, e.call(t, http.MethodGet, "/api/v1/dev/emails?to=pro@fabrica.test", admin(time.Now()), "").Code,
		"a token of the machine's time is two months old for the moved clock")
	rec = e.call(t, http.MethodGet, "/api/v1/dev/emails?to=pro@fabrica.test", admin(worker.Clock().Now()), "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), `"template":"subscription_started"`)

	rec = e.call(t, http.MethodPost, "/api/v1/dev/clock", admin(web.Clock().Now()), `{"reset":true}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.WithinDuration(t, time.Now(), worker.Clock().Now(), time.Second)
	require.Equal(t, http.StatusUnprocessableEntity, e.call(t, http.MethodPost, "/api/v1/dev/clock", admin(time.Now()),
		`{"advance":"31d","reset":true}`).Code, "one move at a time")

	// A stored offset means nothing outside development.
	require.NoError(t, d.Gorm.Exec(`INSERT INTO dev_clock (offset_us) VALUES (?)`, (400*24*time.Hour).Microseconds()).Error)
	other := appOn(t, d, map[string]string{"CLERK_JWT_KEY": issuer.PublicKeyPEM()}, Options{})
	require.WithinDuration(t, time.Now(), other.Clock().Now(), time.Second)
	require.Nil(t, other.devTools(), "no /dev routes")
	require.True(t, strings.HasPrefix(get(web.Echo(), "/api/v1/dev/clock").Body.String(), `{"now":`))
}
