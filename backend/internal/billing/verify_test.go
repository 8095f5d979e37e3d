package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// billingViolations runs billing's checks and returns the subjects each found, by check.
func (f *fixture) billingViolations(t *testing.T) map[string][]string {
	t.Helper()
	rep, err := verify.Run(context.Background(), f.db, f.svc.Checks(), verify.Scope{})
	require.NoError(t, err)
	out := map[string][]string{}
	for _, r := range rep.Results {
		for _, v := range r.Violations {
			out[r.Check.Name] = append(out[r.Check.Name], v.Subject+": "+v.Detail)
		}
	}
	return out
}

// subscribedUser is user_1 on pro through subscription.created (its month granted), and user_2, on free
// without a subscription: billing's checks pass.
func subscribedUser(t *testing.T) *fixture {
	t.Helper()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	require.NoError(t, f.db.Exec(`INSERT INTO users (clerk_user_id, email) VALUES ('user_2', 'b@example.com')`).Error)
	require.Empty(t, f.billingViolations(t))
	return f
}

func TestBillingChecksFindPlantedViolations(t *testing.T) {
	t.Parallel()
	grant := func(clerkID, key string) func(t *testing.T, f *fixture) {
		return func(t *testing.T, f *fixture) {
			var uid string
			require.NoError(t, f.db.Raw(`SELECT id FROM users WHERE clerk_user_id = ?`, clerkID).Scan(&uid).Error)
			_, _, err := f.ledger.Grant(context.Background(), credits.GrantSpec{UserID: mustUUID(t, uid), Amount: 1000, Key: key,
				Category: credits.CategoryAllowance, Source: "sub_1"})
			require.NoError(t, err)
		}
	}
	exec := func(q string) func(t *testing.T, f *fixture) {
		return func(t *testing.T, f *fixture) { require.NoError(t, f.db.Exec(q).Error) }
	}
	for _, tc := range []struct {
		name   string
		plant  func(t *testing.T, f *fixture)
		check  string
		detail string
	}{
		{"a subscriber moved to another tier", exec(`UPDATE users SET current_tier = 'team' WHERE clerk_user_id = 'user_1'`),
			"billing.tier_follows_subscriptions", "on team; the subscriptions say pro"},
		{"a subscriber dropped to free", exec(`UPDATE users SET current_tier = 'free' WHERE clerk_user_id = 'user_1'`),
			"billing.tier_follows_subscriptions", "on free; the subscriptions say pro"},
		{"a paid tier without a subscription", exec(`UPDATE users SET current_tier = 'pro' WHERE clerk_user_id = 'user_2'`),
			"billing.tier_follows_subscriptions", "on pro; the subscriptions say free (none)"},
		{"a paused subscriber kept the tier", exec(`UPDATE subscriptions SET status = 'paused'`),
			"billing.tier_follows_subscriptions", "on pro; the subscriptions say free"},
		{"a refunded period kept the tier", exec(`UPDATE subscriptions SET access_revoked_at = now()`),
			"billing.tier_follows_subscriptions", "on pro; the subscriptions say free"},
		{"a second, higher subscription not followed", exec(`INSERT INTO subscriptions (user_id, paddle_subscription_id, tier, status, last_event_at)
			SELECT id, 'sub_2', 'team', 'active', now() FROM users WHERE clerk_user_id = 'user_1'`),
			"billing.tier_follows_subscriptions", "on pro; the subscriptions say team"},
		{"a canceled period over for hours, still on its tier", exec(`UPDATE subscriptions SET status = 'canceled',
			current_period_end = now() - interval '3 hours', updated_at = now() - interval '3 hours', next_grant_at = NULL`),
			"billing.tier_follows_subscriptions", "on pro; the subscriptions say free"},
		{"a month granted again under a key a second off", grant("user_1", "grant:sub_1:2026-11-01T10:00:01Z"),
			"billing.month_granted_once", "one month granted twice: grant:sub_1:2026-11-01T10:00:00Z"},
		{"a subscription's month granted to another user", grant("user_2", "grant:sub_1:2026-12-01T10:00:00Z"),
			"billing.month_granted_once", "went to user"},
		{"a month the job never looked at", exec(`UPDATE subscriptions SET next_grant_at = now() - interval '3 hours',
			updated_at = now() - interval '3 hours'`),
			"billing.grants_keep_up", "the monthly-grants job is behind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := subscribedUser(t)
			tc.plant(t, f)
			got := f.billingViolations(t)
			require.Len(t, got, 1, got)
			require.Len(t, got[tc.check], 1, got)
			require.Contains(t, got[tc.check][0], tc.detail)
		})
	}
}

// The hourly expire-subscriptions job has not come round yet: a canceled subscription whose period ended
// minutes ago may still hold its tier. So may one past its period whose row just changed.
func TestTierCheckWaitsForTheExpiryJob(t *testing.T) {
	t.Parallel()
	f := subscribedUser(t)
	require.NoError(t, f.db.Exec(`UPDATE subscriptions SET status = 'canceled', current_period_end = now() - interval '30 minutes',
		updated_at = now() - interval '30 minutes', next_grant_at = NULL`).Error)
	require.Empty(t, f.billingViolations(t))
	n, err := f.svc.ExpireCanceled(context.Background(), time.Now())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Empty(t, f.billingViolations(t), "downgraded to free by the job")
}

func mustUUID(t *testing.T, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	require.NoError(t, err)
	return id
}
