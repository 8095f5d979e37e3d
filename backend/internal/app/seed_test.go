package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/seed"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
)

// seedCounts are the rows a seed run writes, table by table.
var seedCounts = map[string]string{
	"users":                    `SELECT count(*) FROM users`,
	"subscriptions":            `SELECT count(*) FROM subscriptions`,
	"subscription_items":       `SELECT count(*) FROM subscription_items`,
	"credit_transactions":      `SELECT count(*) FROM credit_transactions`,
	"processed_webhook_events": `SELECT count(*) FROM processed_webhook_events`,
	"webhook_events":           `SELECT count(*) FROM webhook_events`,
	"audit_logs":               `SELECT count(*) FROM audit_logs`,
	"river_job":                `SELECT count(*) FROM river_job`,
}

func (e *apiEnv) seedCounts(t *testing.T) map[string]int64 {
	out := map[string]int64{}
	for table, q := range seedCounts {
		out[table] = e.count(t, q)
	}
	return out
}

// `fabrica seed` against a real server and Postgres, through the same signed path: run twice, the second
// run changes nothing; the demo users and subscriptions exist, the credits moved, and the one failed
// delivery is in the admin API's failed list.
func TestSeedTwiceChangesNothing(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	e := &apiEnv{db: d, issuer: sessiontest.NewIssuer(t), paddle: &fakePaddle{}}
	e.app = appOn(t, d, map[string]string{"CLERK_JWT_KEY": e.issuer.PublicKeyPEM(), "ADMIN_EMAILS": "ops@example.com",
		"WORKER_API_KEYS": workerKey}, Options{PaddleAPI: e.paddle})
	srv := httptest.NewServer(e.app.Echo())
	t.Cleanup(srv.Close)
	session := func(clerkID, email string) (string, error) {
		return e.issuer.Token(t, sessiontest.TokenClaims{UserID: clerkID, SessionID: "sess_" + clerkID, Email: email,
			EmailVerified: true}), nil
	}
	admin, _ := session("user_ops", "ops@example.com")
	run := func() string {
		var out bytes.Buffer
		require.NoError(t, seed.Run(context.Background(), seed.Config{URL: srv.URL, Client: srv.Client(),
			Events: triggerBuilder(t, e.app), Session: session, Admin: admin, WorkerKey: workerKey, Out: &out}), out.String())
		return out.String()
	}

	first := run()
	t.Log(first)
	once := e.seedCounts(t)
	second := run()
	t.Log(second)
	require.Equal(t, once, e.seedCounts(t), "a second run changes nothing:\n%s", second)
	require.NotContains(t, second, ": 200", "the second run sends no delivery")
	require.Contains(t, first, seed.FailedEventID+": 500")

	tiers := map[string]string{}
	rows, err := d.Gorm.Raw(`SELECT u.email, u.current_tier, coalesce(s.status, '') FROM users u
		LEFT JOIN subscriptions s ON s.user_id = u.id WHERE u.email LIKE '%@fabrica.test'`).Rows()
	require.NoError(t, err)
	for rows.Next() {
		var email, tier, status string
		require.NoError(t, rows.Scan(&email, &tier, &status))
		tiers[email] = tier + "/" + status
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]string{seed.Free.Email: "free/", seed.Pro.Email: "pro/active",
		// Canceled keeps its tier until the paid period ends (the expiry job downgrades it then).
		seed.Canceled.Email: "pro/canceled"}, tiers)
	// Pro: 25 at signup, 1000 for this month, which ended when the renewal's month began (pro's rollover is
	// none), 1000 for the renewal's, 120 kept by a completed job, 40 back.
	require.Equal(t, int64(25+1000-1000+1000-120), e.count(t, `SELECT sum(delta) FROM credit_transactions c JOIN users u
		ON u.id = c.user_id WHERE u.email = ?`, seed.Pro.Email))
	require.Equal(t, int64(25-5), e.count(t, `SELECT sum(delta) FROM credit_transactions c JOIN users u
		ON u.id = c.user_id WHERE u.email = ?`, seed.Free.Email))

	rec := e.call(t, http.MethodGet, "/api/v1/admin/webhook-events?status=failed", admin, "")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var failed struct {
		Items []struct {
			EventID      string `json:"event_id"`
			ErrorMessage string `json:"error_message"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &failed))
	require.Len(t, failed.Items, 1)
	require.Equal(t, seed.FailedEventID, failed.Items[0].EventID)
	require.Contains(t, failed.Items[0].ErrorMessage, "pri_seed_unknown", "the archive says why")
}
