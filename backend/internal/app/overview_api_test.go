package app

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// Pro's price has its amount in the tiers file; Team's has none anywhere (unpriced).
const pricedTiers = `tiers:
  - name: free
    signup_credits: 25
  - name: pro
    paddle_price_ids: [pri_pro_monthly]
    monthly_credits: 1000
    prices:
      pri_pro_monthly: {amount: 1500, currency: USD, interval: month}
  - name: team
    paddle_price_ids: [pri_team_monthly]
    monthly_credits: 5000
`

type overviewBody struct {
	Since   string `json:"since"`
	Days    int    `json:"days"`
	Revenue struct {
		MRR           map[string]int64 `json:"mrr"`
		Subscriptions int              `json:"subscriptions"`
		Unpriced      int              `json:"unpriced"`
		FromTiersFile int              `json:"from_tiers_file"`
		ByTier        []struct {
			Tier          string           `json:"tier"`
			MRR           map[string]int64 `json:"mrr"`
			Subscriptions int              `json:"subscriptions"`
			Unpriced      int              `json:"unpriced"`
		} `json:"by_tier"`
	} `json:"revenue"`
	Churn struct {
		Canceled int64 `json:"canceled"`
		ByTier   []struct {
			Tier  string `json:"tier"`
			Count int64  `json:"count"`
		} `json:"by_tier"`
	} `json:"churn"`
	Activity    struct{ DAU, WAU, MAU int64 } `json:"activity"`
	Acquisition struct {
		Signups  int64            `json:"signups"`
		BySource map[string]int64 `json:"by_source"`
		Days     []struct {
			Day     string `json:"day"`
			Signups int64  `json:"signups"`
		} `json:"days"`
	} `json:"acquisition"`
	Mailing []struct {
		Day                   string
		Sent, Skipped, Failed int64
	} `json:"mailing"`
	Webhooks []struct {
		Day       string           `json:"day"`
		Total     int64            `json:"total"`
		ByOutcome map[string]int64 `json:"by_outcome"`
	} `json:"webhooks"`
	Credits []struct {
		Day                      string
		Granted, Spent, Refunded int64
		Expired                  int64
		RolledOver               int64 `json:"rolled_over"`
	} `json:"credits"`
}

func TestMetricsOverview(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	tiers := filepath.Join(t.TempDir(), "tiers.yaml")
	require.NoError(t, os.WriteFile(tiers, []byte(pricedTiers), 0o600))
	e := &apiEnv{db: d, issuer: sessiontest.NewIssuer(t), paddle: &fakePaddle{}}
	e.app = appOn(t, d, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "TIERS_FILE": tiers,
		"ADMIN_EMAILS": "boss@example.com"}, Options{PaddleAPI: e.paddle})
	boss := e.adminToken(t)
	exec := func(q string, args ...any) { t.Helper(); require.NoError(t, d.Gorm.Exec(q, args...).Error) }

	// Revenue: a pro subscription priced from the tiers file, a team one priced nowhere; churn: a canceled pro.
	e.subscribe(t, "user_pro", "active", "pro")
	e.subscribe(t, "user_team", "active", "team")
	e.subscribe(t, "user_churn", "canceled", "pro")
	exec(`UPDATE subscriptions SET canceled_at = now() - interval '3 days' WHERE paddle_subscription_id = 'sub_user_churn'`)
	exec(`INSERT INTO subscription_items (subscription_id, position, price_id, quantity, recurring, status, tiered)
		SELECT id, 0, paddle_price_id, 1, true, 'active', true FROM subscriptions`)
	// Activity: user_a and the admin are seen by their requests now; others earlier.
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/account/me", e.token(t, "user_a"), "").Code)
	exec(`UPDATE users SET last_seen_at = now() - interval '3 days' WHERE clerk_user_id = 'user_pro'`)
	exec(`UPDATE users SET last_seen_at = now() - interval '20 days' WHERE clerk_user_id = 'user_team'`)
	exec(`UPDATE users SET last_seen_at = now() - interval '40 days' WHERE clerk_user_id = 'user_churn'`)
	// Acquisition: three users with a utm_source; a user from before the window does not count.
	exec(`UPDATE users SET signup_utm_source = 'google' WHERE clerk_user_id IN ('user_pro', 'user_team')`)
	exec(`UPDATE users SET signup_utm_source = 'newsletter' WHERE clerk_user_id = 'user_a'`)
	exec(`INSERT INTO users (clerk_user_id, email, created_at) VALUES ('user_ancient', 'old@example.com', now() - interval '45 days')`)
	// Webhooks: one processed delivery (its user.created grants 25 signup credits), one unauthorized (not archived).
	h, body := clerkEvent(t, "msg_ov", "user.created", "user_hook", "hook@example.com", time.Now().UnixMilli())
	require.Equal(t, http.StatusOK, deliver(e.app.Echo(), webhook.ProviderClerk, h, body).Code)
	// The ledger: 100 granted, 30 spent, 10 refunded, 12 expired of which 8 rolled over today; an old grant
	// outside the window.
	unverified(d, "the overview's ledger rows are planted by hand")
	exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id, expires_at) SELECT id, v.delta, v.kind, v.job,
		CASE WHEN v.kind = 'deduct' THEN now() + interval '1 hour' END FROM users,
		(VALUES (100, 'grant', 'g1'), (-30, 'deduct', 'j1'), (10, 'refund', 'j1'), (-12, 'expire', 'expire:b1'),
		 (8, 'rollover', 'rollover:s1')) AS v(delta, kind, job)
		WHERE clerk_user_id = 'user_a'`)
	exec(`INSERT INTO credit_transactions (user_id, delta, kind, job_id, created_at) SELECT id, 500, 'grant', 'g-old',
		now() - interval '40 days' FROM users WHERE clerk_user_id = 'user_a'`)
	// Mailing: a run with two recipients sent and one skipped today.
	exec(`INSERT INTO broadcast_runs (id, template, subject, kind, status, created_by)
		VALUES ('11111111-1111-4111-8111-111111111111', 'announcement', 's', 'marketing', 'sending', 'test')`)
	exec(`INSERT INTO broadcast_recipients (run_id, user_id, status, finished_at, sent_at)
		SELECT '11111111-1111-4111-8111-111111111111', id, CASE WHEN clerk_user_id = 'user_team' THEN 'skipped' ELSE 'sent' END,
		now(), now() FROM users WHERE clerk_user_id IN ('user_pro', 'user_team', 'user_a')`)

	rec := e.call(t, http.MethodGet, adminAPI+"/metrics/overview", boss, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	o := decodeBody[overviewBody](t, rec)
	today := time.Now().UTC().Format(time.DateOnly)
	require.Equal(t, 30, o.Days)
	require.Equal(t, time.Now().UTC().AddDate(0, 0, -29).Format(time.DateOnly), o.Since)

	require.Equal(t, map[string]int64{"USD": 1500}, o.Revenue.MRR)
	require.Equal(t, 2, o.Revenue.Subscriptions)
	require.Equal(t, 1, o.Revenue.Unpriced, "team's price has no amount anywhere")
	require.Equal(t, 1, o.Revenue.FromTiersFile)
	require.Len(t, o.Revenue.ByTier, 2)
	require.Equal(t, "pro", o.Revenue.ByTier[0].Tier)
	require.Equal(t, map[string]int64{"USD": 1500}, o.Revenue.ByTier[0].MRR)
	require.Equal(t, "team", o.Revenue.ByTier[1].Tier)
	require.Equal(t, 1, o.Revenue.ByTier[1].Unpriced)

	require.Equal(t, int64(1), o.Churn.Canceled)
	require.Equal(t, "pro", o.Churn.ByTier[0].Tier)

	require.Equal(t, int64(2), o.Activity.DAU, "user_a and the admin")
	require.Equal(t, int64(3), o.Activity.WAU)
	require.Equal(t, int64(4), o.Activity.MAU)

	var users int64
	require.NoError(t, d.Gorm.Raw(`SELECT count(*) FROM users WHERE created_at > now() - interval '1 day'`).Scan(&users).Error)
	require.Equal(t, users, o.Acquisition.Signups)
	require.Equal(t, map[string]int64{"google": 2, "newsletter": 1, "": users - 3}, o.Acquisition.BySource)
	require.Len(t, o.Acquisition.Days, 30)
	last := len(o.Acquisition.Days) - 1
	require.Equal(t, today, o.Acquisition.Days[last].Day)
	require.Equal(t, users, o.Acquisition.Days[last].Signups)
	require.Zero(t, o.Acquisition.Days[0].Signups, "zero-filled")

	require.Len(t, o.Mailing, 30)
	require.Equal(t, today, o.Mailing[last].Day)
	require.Equal(t, [3]int64{2, 1, 0}, [3]int64{o.Mailing[last].Sent, o.Mailing[last].Skipped, o.Mailing[last].Failed})

	require.Len(t, o.Webhooks, 30)
	require.Equal(t, int64(1), o.Webhooks[last].Total)
	require.Equal(t, map[string]int64{"processed": 1}, o.Webhooks[last].ByOutcome)

	require.Len(t, o.Credits, 30)
	require.Equal(t, [3]int64{125, 30, 10}, [3]int64{o.Credits[last].Granted, o.Credits[last].Spent, o.Credits[last].Refunded})
	require.Equal(t, [2]int64{12, 8}, [2]int64{o.Credits[last].Expired, o.Credits[last].RolledOver}, "the breakage is 4")
	for _, c := range o.Credits[:last] {
		require.Zero(t, c.Granted, "the 40-day-old grant is outside the window")
	}
}

// An authenticated request records last_seen_at; the next ones within the hour find it fresh on the row
// they loaded and write nothing (the row version stays the same); an hour later it is written again.
func TestLastSeenIsWrittenAtMostHourly(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	tok := e.token(t, "user_seen")
	type row struct {
		LastSeenAt *time.Time
		Xmin       string
	}
	read := func() row {
		var r row
		require.NoError(t, e.db.Gorm.Raw(`SELECT last_seen_at, xmin::text AS xmin FROM users WHERE clerk_user_id = 'user_seen'`).Scan(&r).Error)
		return r
	}
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/account/me", tok, "").Code)
	first := read()
	require.NotNil(t, first.LastSeenAt)
	for range 3 {
		require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/billing/credits", tok, "").Code)
	}
	require.Equal(t, first, read(), "no write within the hour")

	require.NoError(t, e.db.Gorm.Exec(`UPDATE users SET last_seen_at = now() - interval '61 minutes' WHERE clerk_user_id = 'user_seen'`).Error)
	stale := read()
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/api/v1/account/me", tok, "").Code)
	fresh := read()
	require.True(t, fresh.LastSeenAt.After(*stale.LastSeenAt))
	require.WithinDuration(t, time.Now(), *fresh.LastSeenAt, time.Minute)
}
