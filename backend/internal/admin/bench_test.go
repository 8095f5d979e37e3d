package admin_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/admin"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// seedOverview fills a database the size the overview must stay fast on: 100k users spread over 60 days
// of signups (signup_utm_source on most), 60% seen in the last 40 days; 10k subscriptions with their plan item
// (a tenth canceled); 300k ledger movements over 60 days; 60k archived deliveries over 60 days; a
// broadcast of 100k recipients settled over 30 days. Then ANALYZE, as autovacuum would.
var seedOverview = []string{
	// The archive's partitions exist from the current month on; the seed reaches three months back.
	`DO $$ DECLARE m date := date_trunc('month', now() AT TIME ZONE 'UTC') - interval '3 months'; BEGIN
	   WHILE m < date_trunc('month', now() AT TIME ZONE 'UTC') LOOP
	     EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF webhook_events FOR VALUES FROM (%L) TO (%L)',
	       'webhook_events_' || to_char(m, '"y"YYYY"m"MM'), m::timestamp AT TIME ZONE 'UTC',
	       (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
	     m := m + interval '1 month';
	   END LOOP; END $$`,
	`INSERT INTO users (clerk_user_id, email, email_verified, current_tier, marketing_consent_given, signup_utm_source,
	   created_at, last_seen_at)
	 SELECT 'user_' || n, 'u' || n || '@example.com', true, CASE WHEN n % 10 = 0 THEN 'pro' ELSE 'free' END, n % 3 = 0,
	   (ARRAY['google', 'newsletter', 'twitter', 'partner', NULL])[1 + n % 5],
	   now() - (n % 60) * interval '1 day' - (n % 1440) * interval '1 minute',
	   CASE WHEN n % 10 < 6 THEN now() - (n % 40) * interval '1 day' END
	 FROM generate_series(1, 100000) n`,
	`INSERT INTO subscriptions (user_id, paddle_subscription_id, paddle_customer_id, paddle_price_id, tier, status,
	   canceled_at, current_period_end, last_event_at)
	 SELECT id, 'sub_' || clerk_user_id, 'ctm_' || clerk_user_id, 'pri_pro_monthly', 'pro',
	   CASE WHEN random() < 0.1 THEN 'canceled' ELSE 'active' END, NULL, now() + interval '20 days', now()
	 FROM users WHERE current_tier = 'pro'`,
	`UPDATE subscriptions SET canceled_at = now() - (random() * 60) * interval '1 day' WHERE status = 'canceled'`,
	`INSERT INTO subscription_items (subscription_id, position, price_id, quantity, unit_amount, currency,
	   billing_interval, billing_frequency, recurring, status, tiered)
	 SELECT id, 0, 'pri_pro_monthly', 1, 1500, 'USD', 'month', 1, true, 'active', true FROM subscriptions`,
	`INSERT INTO credit_transactions (user_id, delta, kind, job_id, expires_at, created_at)
	 SELECT u.id, CASE k WHEN 1 THEN 100 WHEN 2 THEN -7 ELSE 7 END, (ARRAY['grant', 'deduct', 'refund'])[k],
	   'job-' || n, CASE WHEN k = 2 THEN now() END, now() - (n % 60) * interval '1 day'
	 FROM generate_series(1, 100000) n JOIN users u ON u.clerk_user_id = 'user_' || n, generate_series(1, 3) k`,
	`INSERT INTO webhook_events (provider, event_id, event_type, body, processing_status, created_at)
	 SELECT 'paddle', 'evt_' || n, 'subscription.updated', '\x7b7d'::bytea,
	   (ARRAY['processed', 'processed', 'processed', 'skipped', 'failed', 'ignored'])[1 + n % 6],
	   now() - (n % 60) * interval '1 day' FROM generate_series(1, 60000) n`,
	`INSERT INTO broadcast_runs (id, template, subject, kind, status, created_by)
	 VALUES ('22222222-2222-4222-8222-222222222222', 'announcement', 'bench', 'transactional', 'finished', 'bench')`,
	`INSERT INTO broadcast_recipients (run_id, user_id, status, reason, finished_at, sent_at)
	 SELECT '22222222-2222-4222-8222-222222222222', id, s, CASE WHEN s <> 'sent' THEN 'x' END, t,
	   CASE WHEN s = 'sent' THEN t END
	 FROM (SELECT id, (ARRAY['sent', 'sent', 'sent', 'skipped', 'failed'])[1 + (row_number() OVER ()) % 5] AS s,
	   now() - (random() * 30) * interval '1 day' AS t FROM users) r`,
	`ANALYZE`,
}

// BenchmarkOverview100kUsers is one GET /api/v1/admin/metrics/overview's service call on the seeded
// database: one snapshot, every section (docs/benchmarks.md records the figure).
func BenchmarkOverview100kUsers(b *testing.B) {
	d := pgtest.New(b)
	for _, q := range seedOverview {
		if err := d.Gorm.Exec(q).Error; err != nil {
			b.Fatal(err)
		}
	}
	tiers, err := billing.LoadTiers("")
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	bill := billing.New(billing.Deps{DB: d.Gorm, Tiers: tiers, Ledger: credits.New(d.Gorm, credits.Config{}), Jobs: &jobstest.Mailer{},
		Signer: billing.NewCheckoutSigner("bench-checkout-secret-0123456789abcdef"), Erasures: account.NewErasures("bench-erasure-key-0123456789abcdef"),
		Log: log}, billing.Config{})
	svc := admin.New(d.Gorm, nil, bill, credits.New(d.Gorm, credits.Config{}))
	ctx := context.Background()
	o, err := svc.Overview(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if o.Acquisition.Signups < 40000 || o.Activity.MAU == 0 || o.Revenue.Subscriptions < 8000 {
		b.Fatalf("seed not visible: %+v %+v %d", o.Acquisition.Signups, o.Activity, o.Revenue.Subscriptions)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Overview(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
