package credits_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
)

// The expiry job writes off buckets by the million at a month boundary, and the daily verify may run
// before autovacuum has analyzed the tables again. With statistics from before the expiry (no expired
// bucket, no expire movement), the check that each written-off bucket has one expire movement used to
// look the movements up by kind, through the (kind, created_at) index, once per bucket: every expire
// movement read for every bucket, quadratic (a minute for 20,000 buckets in the ledger benchmark). It
// must find each bucket's movement by the unique key's (user_id, job_id) prefix whatever the statistics.
func TestExpiredBucketCheckStaysOnTheUniqueKeyWithStaleStatistics(t *testing.T) {
	t.Parallel()
	svc, d := setup(t)
	ctx := context.Background()
	now := time.Now()
	for range 20 {
		user := newUser(t, svc, d, 0)
		for i := range 10 {
			grant(t, svc, user, 10, fmt.Sprint("month-", i), credits.CategoryAllowance, at(now.Add(time.Minute)), 0)
		}
	}
	require.NoError(t, d.Gorm.Exec(`ANALYZE credit_buckets, credit_transactions`).Error)
	rep, err := svc.At(now.Add(time.Hour)).ExpireDue(ctx, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, 200, rep.Buckets)

	var plan []string
	require.NoError(t, d.Gorm.Raw(`EXPLAIN `+credits.CheckSQL("ledger.expired_bucket_is_empty"),
		map[string]any{"user": nil}).Scan(&plan).Error)
	text := strings.Join(plan, "\n")
	require.Contains(t, text, "uq_credit_transactions_user_job_kind", text)
	require.NotContains(t, text, "ix_credit_transactions_kind_created_at", text)
	mustVerify(t, d)
}
