package credits_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// mustVerify runs every ledger check and fails the test on any difference.
func mustVerify(t testing.TB, d *pgtest.DB) {
	t.Helper()
	rep, err := verify.Run(context.Background(), d.Gorm, credits.Checks(), verify.Scope{})
	require.NoError(t, err)
	for _, r := range rep.Results {
		require.Empty(t, r.Violations, r.Check.Name)
	}
}

func at(t time.Time) *time.Time { return &t }

// grant grants amount into a bucket of category expiring at exp (nil: never) and priority prio (0: default).
func grant(t testing.TB, svc *credits.Service, user uuid.UUID, amount int, key, category string, exp *time.Time, prio int) {
	t.Helper()
	_, created, err := svc.Grant(context.Background(), credits.GrantSpec{UserID: user, Amount: amount, Key: key,
		Category: category, ExpiresAt: exp, Priority: prio})
	require.NoError(t, err)
	require.True(t, created, key)
}

// remaining maps each of the user's buckets (by its grant's key) to what it holds.
func remaining(t testing.TB, d *pgtest.DB, user uuid.UUID) map[string]int {
	t.Helper()
	var rows []struct {
		Key       string
		Remaining int
	}
	require.NoError(t, d.Gorm.Raw(`SELECT coalesce(t.job_id, b.category) AS key, b.remaining FROM credit_buckets b
		LEFT JOIN credit_transactions t ON t.id = b.grant_id WHERE b.user_id = ?`, user).Scan(&rows).Error)
	out := map[string]int{}
	for _, r := range rows {
		out[r.Key] += r.Remaining
	}
	return out
}

// A spend burns buckets by priority, then the soonest expiry (never last), then promotional before
// allowance before purchased, then the oldest.
func TestSpendBurnsBucketsInOrder(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	user := newUser(t, svc, d, 0)
	now := time.Now()
	grant(t, svc, user, 10, "purchased", credits.CategoryPurchased, nil, 0)
	grant(t, svc, user, 10, "allowance", credits.CategoryAllowance, nil, 0)
	grant(t, svc, user, 10, "promo-old", credits.CategoryPromotional, nil, 0)
	grant(t, svc, user, 10, "promo-new", credits.CategoryPromotional, nil, 0)
	grant(t, svc, user, 10, "expires-late", credits.CategoryPurchased, at(now.Add(48*time.Hour)), 0)
	grant(t, svc, user, 10, "expires-soon", credits.CategoryPurchased, at(now.Add(24*time.Hour)), 0)
	grant(t, svc, user, 10, "first-by-priority", credits.CategoryPurchased, nil, 10)

	order := []string{"first-by-priority", "expires-soon", "expires-late", "promo-old", "promo-new", "allowance", "purchased"}
	for i := range 9 {
		_, _, created, err := svc.Charge(ctx, user, 7, "charge-"+strconv.Itoa(i), "")
		require.NoError(t, err)
		require.True(t, created)
		// 7 at a time from the buckets in burn order: bucket j holds what the 7*(i+1) burned so far left of it.
		want := map[string]int{}
		for j, key := range order {
			want[key] = min(max(10*(j+1)-7*(i+1), 0), 10)
		}
		require.Equal(t, want, remaining(t, d, user), "after charge %d", i)
	}
	require.Equal(t, 70-63, balance(t, svc, user))
	mustVerify(t, d)
}
