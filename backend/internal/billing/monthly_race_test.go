package billing_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// yearlyOf is the yearly Team sample (10 seats: 5000 credits a month) started at start, as subscription
// sub_<i> of user_<i>, each signed for its own user.
func (f *fixture) yearlyOf(t *testing.T, i int, start time.Time) event {
	t.Helper()
	clerk, mail := fmt.Sprintf("user_%d", i), fmt.Sprintf("u%d@example.com", i)
	return f.yearlyFrom(t, start).set("event_id", fmt.Sprintf("evt_c%d", i)).set("data.id", fmt.Sprintf("sub_%d", i)).
		set("data.custom_data.clerk_user_id", clerk).set("data.custom_data.email", mail).
		set("data.custom_data.checkout_sig", f.signer.Sign(clerk, mail, start))
}

// monthGrants sums each subscription's grants of the month starting at month (base key and top-ups).
func (f *fixture) monthGrants(t *testing.T, month time.Time) map[string]int {
	t.Helper()
	var rows []struct {
		Sub   string
		Total int
	}
	require.NoError(t, f.db.Raw(`SELECT split_part(job_id, ':', 2) AS sub, sum(delta) AS total FROM credit_transactions
		WHERE kind = 'grant' AND split_part(job_id, ':', 3) || ':' || split_part(job_id, ':', 4) || ':' || split_part(job_id, ':', 5) = ?
		GROUP BY 1`, month.UTC().Format(time.RFC3339)).Scan(&rows).Error)
	out := map[string]int{}
	for _, r := range rows {
		out[r.Sub] = r.Total
	}
	return out
}

// The monthly-grants job races, on a month nobody has granted yet, a full refund of every subscription's
// payment and two more runs of itself. The job's read-then-grant must hold each subscription's row lock
// (FOR UPDATE SKIP LOCKED), the lock every webhook of the subscription takes: without it a run reads a
// subscription as paid, the refund commits (access revoked, the allowance ended), and the run then grants
// the month to a subscription whose payment was refunded, an allowance nothing ends. Each month is granted
// at most once, and no live allowance is left.
func TestMonthlyGrantsRaceRefundsOnAnUngrantedMonth(t *testing.T) {
	t.Parallel()
	const (
		subs = 12
		jobs = 3
	)
	start := sampleT0                // 2026-11-01 10:00 UTC; month 0 comes with subscription.created
	month1 := start.AddDate(0, 1, 0) // 2026-12-01 10:00 UTC: due, granted by nobody yet
	refundAt := month1.AddDate(0, 0, 4)
	now := refundAt.Add(time.Hour)
	for round := range 3 {
		// rollover: none, so a refund ends the allowance (a tier without the key never expires it).
		f := newFixture(t, pgtest.New(t), strings.Replace(sampleTiers, "credits_per_seat: true", "credits_per_seat: true\n    rollover: none", 1))
		bodies := make([][]byte, 0, subs)
		for i := range subs {
			created := f.yearlyOf(t, i, start).set("data.transaction_id", fmt.Sprintf("txn_%d", i))
			f.mustDeliver(t, created.body())
			bodies = append(bodies, adjustmentOf(fmt.Sprintf("sub_%d", i), fmt.Sprintf("txn_%d", i), refundAt))
		}

		var ready, done sync.WaitGroup
		begin := make(chan struct{})
		errs := make(chan error, subs+jobs)
		run := func(fn func() error) {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				ready.Done()
				<-begin
				errs <- fn()
			}()
		}
		for _, body := range bodies {
			run(func() error { _, err := f.deliver(t, body); return err })
		}
		for range jobs {
			run(func() error { _, err := f.svc.GrantMonths(context.Background(), now); return err })
		}
		ready.Wait()
		close(begin)
		done.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err, "round %d", round)
		}

		for sub, total := range f.monthGrants(t, month1) {
			require.Equal(t, 5000, total, "round %d: %s: month 1 granted once at 10 seats, or not at all", round, sub)
		}
		var live int
		require.NoError(t, f.db.Raw(`SELECT coalesce(sum(remaining), 0) FROM credit_buckets
			WHERE category = 'allowance' AND remaining > 0 AND (expires_at IS NULL OR expires_at > ?)`, now).Scan(&live).Error)
		require.Zero(t, live, "round %d: a refunded subscription keeps no allowance", round)
		var paid int64
		require.NoError(t, f.db.Raw(`SELECT count(*) FROM subscriptions WHERE access_revoked_at IS NULL`).Scan(&paid).Error)
		require.Zero(t, paid, "round %d: every refund revoked access", round)

		// A later run grants nothing: every subscription is refunded.
		rep := f.grantMonths(t, now.Add(time.Hour))
		require.Zero(t, rep.Grants, "round %d", round)
	}
}
