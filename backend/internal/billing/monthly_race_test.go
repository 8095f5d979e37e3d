package billing_test

import (
	"context"
	"fmt"
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

// The monthly-grants job races, on a month nobody has granted yet, a seat upgrade of every subscription
// and a second run of itself. The job's read-then-grant must hold each subscription's row lock (FOR UPDATE
// SKIP LOCKED) like every webhook of the subscription does: without it the job inserts the month's base
// grant at 10 seats while a 20-seat snapshot, which read "nothing granted" before the job committed, finds
// the base key taken and grants nothing, and the month ends at the smaller allowance (or the two deadlock
// on the row and the balance). Every month must end at the largest allowance delivered for it, once.
func TestMonthlyGrantsRaceSeatUpgradesOnAnUngrantedMonth(t *testing.T) {
	t.Parallel()
	const (
		subs = 12
		jobs = 3
	)
	start := sampleT0                // 2026-11-01 10:00 UTC; month 0 comes with subscription.created
	month1 := start.AddDate(0, 1, 0) // 2026-12-01 10:00 UTC: due, granted by nobody yet
	upgradeAt := month1.AddDate(0, 0, 4)
	now := upgradeAt.Add(time.Hour)
	for round := range 3 {
		f := newFixture(t, pgtest.New(t), sampleTiers)
		bodies := make([][]byte, 0, subs)
		for i := range subs {
			created := f.yearlyOf(t, i, start)
			f.mustDeliver(t, created.body())
			bodies = append(bodies, seats(created, fmt.Sprintf("evt_seats%d", i), upgradeAt, 20).body())
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

		want := map[string]int{}
		for i := range subs {
			want[fmt.Sprintf("sub_%d", i)] = 10000 // 20 seats × 500
		}
		require.Equal(t, want, f.monthGrants(t, month1), "round %d: month 1 ends at the 20-seat allowance, once", round)
		var total int
		require.NoError(t, f.db.Raw(`SELECT coalesce(sum(delta), 0) FROM credit_transactions WHERE kind = 'grant'`).Scan(&total).Error)
		require.Equal(t, subs*(5000+10000), total, "round %d: month 0 at 10 seats, month 1 at 20", round)

		// A later run finds every month granted, whichever of the racers granted it.
		rep := f.grantMonths(t, now)
		require.Zero(t, rep.Grants, "round %d", round)
	}
}
