package usage_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testTiers = `tiers:
  - name: free
    low_balance: 10
    features:
      api_calls: {limit: 100, per: month}
      exports: {limit: 10, per: month, overage: allow}
      generations: {credits: 5, client_reportable: true}
      projects: {limit: 3}
  - name: pro
    paddle_price_ids: [pri_pro]
    features:
      api_calls: {limit: 1000, per: month}
      exports: {limit: 100, per: month, overage: allow}
      generations: {credits: 3}
      projects: {limit: 50}
      sso: true
`

// env is a usage Service on a private database, with a recording mail queue.
type env struct {
	db     *pgtest.DB
	svc    *usage.Service
	ledger *credits.Service
	tiers  *billing.Tiers
	mail   *fakeMail
}

func setup(t *testing.T, hooks ...usage.Hook) *env {
	t.Helper()
	d := pgtest.New(t)
	tiers, err := billing.ParseTiers([]byte(testTiers))
	require.NoError(t, err)
	e := &env{db: d, tiers: tiers, mail: &fakeMail{}, ledger: credits.New(d.Gorm, credits.Config{})}
	e.svc = e.service(d.Gorm, hooks...)
	return e
}

// service is another Service on the same database (a second instance of the app).
func (e *env) service(gdb *gorm.DB, hooks ...usage.Hook) *usage.Service {
	return e.serviceAt(gdb, nil, hooks...)
}

// serviceAt is a Service whose clock is now (nil: the real one).
func (e *env) serviceAt(gdb *gorm.DB, now func() time.Time, hooks ...usage.Hook) *usage.Service {
	return usage.New(usage.Deps{DB: gdb, Tiers: e.tiers, Ledger: credits.New(gdb, credits.Config{Now: now}), Jobs: e.mail, Hooks: hooks},
		usage.Config{AppName: "Fabrica", ManageURL: "https://app.example.com/billing", Now: now})
}

// user creates a user on tier (free, or pro with a live subscription anchoring their month) with credits.
func (e *env) user(t *testing.T, tier string, balance int) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	clerk := "user_" + uuid.NewString()
	require.NoError(t, e.db.Gorm.Raw(`INSERT INTO users (clerk_user_id, email, email_verified, current_tier) VALUES (?, ?, true, ?) RETURNING id`,
		clerk, clerk+"@example.com", tier).Row().Scan(&id))
	if tier != "free" {
		require.NoError(t, e.db.Gorm.Exec(`INSERT INTO subscriptions (user_id, paddle_subscription_id, paddle_customer_id,
			paddle_price_id, tier, status, current_period_start, current_period_end, last_event_at)
			VALUES (?, ?, 'ctm_x', 'pri_pro', ?, 'active', now() - interval '3 days', now() + interval '27 days', now())`,
			id, "sub_"+id.String(), tier).Error)
	}
	if balance > 0 {
		_, _, err := e.ledger.Grant(context.Background(), credits.GrantSpec{UserID: id, Amount: balance, Key: "seed", Reason: "seed"})
		require.NoError(t, err)
	}
	return id
}

// record records one event in a transaction of its own.
func (e *env) record(t *testing.T, ev usage.Event) usage.Result {
	t.Helper()
	rs, err := e.svc.RecordEvents(context.Background(), []usage.Event{ev})
	require.NoError(t, err)
	return rs[0]
}

func (e *env) count(t *testing.T, query string, args ...any) int64 {
	t.Helper()
	var n int64
	require.NoError(t, e.db.Gorm.Raw(query, args...).Scan(&n).Error)
	return n
}

// used is the user's counter of feature this month (0 without one).
func (e *env) used(t *testing.T, user uuid.UUID, feature string) int64 {
	return e.count(t, `SELECT coalesce(sum(used), 0) FROM usage_counters WHERE user_id = ? AND feature = ?
		AND period_start <= now() AND period_end > now()`, user, feature)
}

// together runs f(0..n-1) in n goroutines released at once and returns their results.
func together[T any](n int, f func(i int) T) []T {
	out := make([]T, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return out
}

// fakeMail records the emails enqueued (committed or not: the row count tells what committed).
type fakeMail struct {
	mu   sync.Mutex
	sent []string
	data []any // each email's template data, in the order of sent
}

func (f *fakeMail) EnqueueEmailTx(_ context.Context, _ *gorm.DB, template, to, key string, data any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, template+" "+to+" "+key)
	f.data = append(f.data, data)
	return nil
}

func statuses(rs []usage.Result) map[string]int {
	out := map[string]int{}
	for _, r := range rs {
		out[r.Status]++
	}
	return out
}
