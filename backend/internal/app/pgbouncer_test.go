package app

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/session/sessiontest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The scale-out topology of docs/scaling.md: three `fabrica serve` processes (each its own pool) and one
// `fabrica worker`, all through PgBouncer in transaction pooling with DB_SIMPLE_PROTOCOL=true, on fewer
// server connections than they have clients, handed out in turn. The exactly-once claims must hold there
// too: every effect of a delivery commits with its claim, in one transaction on one server connection.
func TestExactlyOnceThroughPgBouncer(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	bouncer := pgtest.PgBouncer(t, d, 4)
	issuer := sessiontest.NewIssuer(t)
	env := map[string]string{"DATABASE_URL": bouncer.URL, "DB_SIMPLE_PROTOCOL": "true", "SERVE_WORKERS": "false",
		"SHUTDOWN_TIMEOUT": "5s", "CLERK_JWT_KEY": issuer.PublicKeyPEM(), "ADMIN_EMAILS": "boss@example.com"}
	servers := make([]*apiEnv, 3)
	for i := range servers {
		servers[i] = &apiEnv{app: appOn(t, d, env, Options{PaddleAPI: &fakePaddle{}}), db: d, issuer: issuer}
	}
	sender := &recordingSender{}
	worker := appOn(t, d, env, Options{EmailSender: sender})
	runWorkers(t, worker)

	rec := get(servers[0].app.Echo(), "/health/ready")
	require.Equal(t, http.StatusOK, rec.Code, "the schema check reads goose's and River's versions through PgBouncer: %s", rec.Body)

	// Thirty copies of one user.created at once, spread over the three servers.
	const n = 30
	h, body := clerkEvent(t, "msg_pooled", "user.created", "user_pooled", "pooled@example.com", 1_700_000_000_000)
	codes := concurrently(n, func(i int) int { return deliver(servers[i%3].app.Echo(), webhook.ProviderClerk, h, body).Code })
	for _, c := range codes {
		require.Equal(t, http.StatusOK, c)
	}
	require.Equal(t, tally{Users: 1, Grants: 1, Credits: 25, EmailJobs: 1, Audits: 1, Claims: 1, Processed: 1, Skipped: n - 1},
		countAll(t, d))

	// The poll-only worker sends the welcome email once, and River's own work through the pool (leader
	// election, the periodic tasks it enqueues on start) completes without an error.
	require.Eventually(t, func() bool { return len(sender.messages()) == 1 }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, "welcome/user_pooled", sender.messages()[0].IdempotencyKey)
	require.Eventually(t, func() bool {
		var tasks, open int64
		require.NoError(t, d.Gorm.Raw(`SELECT count(*) FILTER (WHERE kind = 'task'), count(*) FILTER (WHERE state <> 'completed')
			FROM river_job`).Row().Scan(&tasks, &open))
		return tasks == int64(len(worker.tasks())) && open == 0
	}, 10*time.Second, 50*time.Millisecond, "the leader enqueues each periodic task on start, and every job completes")
	require.Zero(t, servers[0].count(t, `SELECT count(*) FROM river_job WHERE errors IS NOT NULL`), "at the first attempt")

	// Paddle sends subscription.updated before subscription.created: the update fails and is archived. Once
	// created has arrived, two operators replay the failed delivery at once on two servers: it processes once.
	t0 := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	upH, upBody := paddleDelivery(t, "evt_pooled_up", "subscription.updated", "past_due", t0.Add(time.Minute), nil)
	require.Equal(t, http.StatusInternalServerError, deliver(servers[0].app.Echo(), webhook.ProviderPaddle, upH, upBody).Code)
	var failed string
	require.NoError(t, d.Gorm.Raw(`SELECT id FROM webhook_events WHERE event_id = 'evt_pooled_up' AND processing_status = 'failed'`).
		Scan(&failed).Error)
	require.Zero(t, servers[0].count(t, `SELECT count(*) FROM processed_webhook_events WHERE event_id = 'evt_pooled_up'`),
		"the failed delivery's claim rolled back with it")
	signer := billing.NewCheckoutSigner(servers[0].app.cfg.CheckoutSigningSecret)
	cd := map[string]any{"clerk_user_id": "user_late", "email": "late@example.com",
		"checkout_sig": signer.Sign("user_late", "late@example.com", t0.Add(-time.Minute))}
	crH, crBody := paddleDelivery(t, "evt_pooled_cr", "subscription.created", "active", t0, cd)
	require.Equal(t, http.StatusOK, deliver(servers[1].app.Echo(), webhook.ProviderPaddle, crH, crBody).Code)

	boss := issuer.Token(t, sessiontest.TokenClaims{UserID: "user_boss", SessionID: "sess_boss", Email: "boss@example.com",
		EmailVerified: true})
	var statuses []string
	for _, rec := range concurrently(2, func(i int) *httptest.ResponseRecorder {
		return servers[1+i].call(t, http.MethodPost, adminAPI+"/webhook-events/"+failed+"/replay", boss, "")
	}) {
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		statuses = append(statuses, decodeBody[map[string]string](t, rec)["status"])
	}
	require.ElementsMatch(t, []string{webhook.StatusProcessed, webhook.StatusSkipped}, statuses)
	e := servers[0]
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM subscriptions WHERE paddle_subscription_id = 'sub_late' AND status = 'past_due'`))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'subscription.updated'`), "effects once")
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM webhook_events WHERE replay_of = ?`, failed))
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'admin.webhook_replayed'`))

	require.Len(t, sender.messages(), 1, "still one welcome email after the worker's later polls")

	// It all went through PgBouncer: more clients than server connections, and no more of those than the pool.
	pool := bouncerPool(t, bouncer, d.Name)
	require.Greater(t, pool["cl_active"], bouncer.PoolSize, "clients share server connections")
	require.LessOrEqual(t, pool["sv_active"]+pool["sv_idle"]+pool["sv_used"]+pool["sv_tested"]+pool["sv_login"], bouncer.PoolSize)
}

// bouncerPool reads PgBouncer's SHOW POOLS row for dbname as column -> count.
func bouncerPool(t *testing.T, b *pgtest.Bouncer, dbname string) map[string]int {
	t.Helper()
	cfg, err := pgx.ParseConfig(b.Admin)
	require.NoError(t, err)
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), "SHOW POOLS")
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		require.NoError(t, err)
		row := map[string]int{}
		for i, f := range rows.FieldDescriptions() {
			if n, err := strconv.Atoi(fmt.Sprint(vals[i])); err == nil {
				row[f.Name] = n
			}
		}
		if vals[0] == dbname {
			return row
		}
	}
	require.NoError(t, rows.Err())
	t.Fatalf("no pool for %s in SHOW POOLS", dbname)
	return nil
}
