package billing_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func (f *fixture) grantMonths(t *testing.T, now time.Time) billing.MonthlyReport {
	t.Helper()
	rep, err := f.svc.GrantMonths(context.Background(), now)
	require.NoError(t, err)
	return rep
}

// yearlyFrom is the yearly Team sample (10 seats: 5000 credits a month) started at start.
func (f *fixture) yearlyFrom(t *testing.T, start time.Time) event {
	t.Helper()
	e := loadEvent(t, "subscription_created_yearly_team.json").set("occurred_at", start.Add(2*time.Second)).
		period(start, start.AddDate(1, 0, 0))
	return f.signed(e, start)
}

// monthAfter is start plus k calendar months, the day clamped to the month's last (Jan 31 -> Feb 28).
func monthAfter(start time.Time, k int) time.Time {
	first := time.Date(start.Year(), start.Month()+time.Month(k), 1, start.Hour(), start.Minute(), start.Second(), 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(start.Day(), last)-1)
}

func month(start time.Time, k int) string {
	return "grant:" + sampleSub + ":" + monthAfter(start.UTC(), k).Format(time.RFC3339) + "=5000"
}

// The monthly grant job's defining case: a yearly subscription started 40 days ago has exactly two monthly grants
// after the job runs (month 0 from subscription.created, month 1 from the job), and a second run grants
// nothing.
func TestYearlySubscriptionStartedFortyDaysAgoHasTwoMonthlyGrants(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	now := time.Now().UTC().Truncate(time.Second)
	start := now.Add(-40 * 24 * time.Hour)
	f.mustDeliver(t, f.yearlyFrom(t, start).body())

	require.Equal(t, billing.MonthlyReport{Subscriptions: 1, Grants: 1, Credits: 5000}, f.grantMonths(t, now))
	require.Equal(t, []string{month(start, 0), month(start, 1)}, f.grantsOf(t))
	require.Equal(t, billing.MonthlyReport{}, f.grantMonths(t, now), "the next month has not started: nothing is due")
	require.Equal(t, billing.MonthlyReport{}, f.grantMonths(t, now.Add(time.Hour)))
	require.Equal(t, 10000, f.sampleState(t).Balance)
	var next time.Time
	require.NoError(t, f.db.Raw(`SELECT next_grant_at FROM subscriptions`).Row().Scan(&next))
	require.Equal(t, monthAfter(start, 2), next.UTC())
}

// The job was down for a week across a month boundary, then for three months: each run grants every
// month that started meanwhile, once.
func TestMonthlyGrantsCatchUpAfterAWeekWithoutTheJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	start := sampleT0 // 2026-11-01 10:00 UTC
	f.mustDeliver(t, f.yearlyFrom(t, start).body())
	require.Equal(t, 0, f.grantMonths(t, start.AddDate(0, 0, 25)).Grants, "month 0 came with subscription.created")

	// No run from Nov 27 to Dec 3; the Dec 4 run grants December.
	require.Equal(t, 1, f.grantMonths(t, start.AddDate(0, 0, 33)).Grants)
	require.Equal(t, []string{month(start, 0), month(start, 1)}, f.grantsOf(t))

	// Three months without the job: one run grants January, February and March.
	require.Equal(t, billing.MonthlyReport{Subscriptions: 1, Grants: 3, Credits: 15000}, f.grantMonths(t, time.Date(2027, 3, 15, 0, 0, 0, 0, time.UTC)))
	require.Equal(t, []string{month(start, 0), month(start, 1), month(start, 2), month(start, 3), month(start, 4)}, f.grantsOf(t))
	require.Equal(t, 0, f.grantMonths(t, time.Date(2027, 3, 15, 0, 0, 0, 0, time.UTC)).Grants)
}

// A monthly plan's month 0 comes with its events; the job looks once per period, finds it, and stops.
func TestMonthlyPlansNeedNothingFromTheJob(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	f.mustDeliver(t, f.samples(t).monthly.body())
	require.Equal(t, billing.MonthlyReport{Subscriptions: 1}, f.grantMonths(t, sampleT0.AddDate(0, 0, 3)))
	require.Equal(t, billing.MonthlyReport{}, f.grantMonths(t, sampleT0.AddDate(0, 0, 40)))
	var due int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM subscriptions WHERE next_grant_at IS NOT NULL`).Scan(&due).Error)
	require.Zero(t, due)
	require.Equal(t, 1000, f.sampleState(t).Balance)
}

// quarterly is the monthly Pro sample billed every 3 months (period Nov 1 - Feb 1: three monthly grants).
func (f *fixture) quarterly(t *testing.T, eventID, eventType, status string, at time.Time) event {
	t.Helper()
	e := f.samples(t).monthly.as(eventID, eventType, at).set("data.status", status).
		set("data.billing_cycle.frequency", 3).set("data.items.1.price.billing_cycle.frequency", 3).
		period(sampleT0, sampleT0.AddDate(0, 3, 0))
	if eventType == "subscription.created" {
		e.set("data.transaction_id", "txn_01hv8wptq8987qeep44cyrewp9")
	}
	return e
}

// Which statuses the job grants: active; canceled only for the months before the end of a period it saw
// active; past_due is held and caught up once Paddle reports the subscription active again; trialing never.
func TestMonthlyGrantsFollowTheStatus(t *testing.T) {
	t.Parallel()
	march := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
	grantKey := func(m time.Month, y int) string {
		return fmt.Sprintf("grant:%s:%d-%02d-01T10:00:00Z=1000", sampleSub, y, m)
	}
	t.Run("canceled keeps the months of its paid period", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, pgtest.New(t), sampleTiers)
		f.mustDeliver(t, f.quarterly(t, "evt_c", "subscription.created", "active", sampleT0).body())
		f.mustDeliver(t, f.quarterly(t, "evt_x", "subscription.canceled", "canceled", sampleT0.AddDate(0, 0, 10)).body())
		require.Equal(t, 2, f.grantMonths(t, march).Grants)
		require.Equal(t, []string{grantKey(11, 2026), grantKey(12, 2026), grantKey(1, 2027)}, f.grantsOf(t),
			"Dec and Jan start before the period's end (Feb 1); nothing after")
	})
	t.Run("past_due is held, then caught up", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, pgtest.New(t), sampleTiers)
		f.mustDeliver(t, f.quarterly(t, "evt_c", "subscription.created", "active", sampleT0).body())
		f.mustDeliver(t, f.quarterly(t, "evt_pd", "subscription.past_due", "past_due", sampleT0.AddDate(0, 0, 20)).body())
		require.Zero(t, f.grantMonths(t, time.Date(2027, 1, 5, 0, 0, 0, 0, time.UTC)).Grants)
		require.Equal(t, []string{grantKey(11, 2026)}, f.grantsOf(t))
		// Paid on Jan 6: the snapshot grants January at once, the job December.
		f.mustDeliver(t, f.quarterly(t, "evt_ok", "subscription.updated", "active", time.Date(2027, 1, 6, 0, 0, 0, 0, time.UTC)).body())
		require.Equal(t, 1, f.grantMonths(t, time.Date(2027, 1, 7, 0, 0, 0, 0, time.UTC)).Grants)
		require.Equal(t, []string{grantKey(11, 2026), grantKey(12, 2026), grantKey(1, 2027)}, f.grantsOf(t))
	})
	t.Run("a trial is never granted by the job", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, pgtest.New(t), sampleTiers)
		f.mustDeliver(t, f.quarterly(t, "evt_c", "subscription.created", "trialing", sampleT0).body())
		require.Equal(t, billing.MonthlyReport{}, f.grantMonths(t, march))
		f.mustDeliver(t, f.quarterly(t, "evt_x", "subscription.canceled", "canceled", sampleT0.AddDate(0, 0, 10)).body())
		require.Equal(t, billing.MonthlyReport{}, f.grantMonths(t, march), "a canceled trial was never a paid period")
		require.Empty(t, f.grantsOf(t))
	})
}

// Eight job runs at once (instances, a manual run beside the schedule) grant each month of each
// subscription once: SKIP LOCKED splits the rows, and a granted month is never granted again.
func TestMonthlyGrantsConcurrentRunsGrantOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	start := sampleT0
	const subs = 5
	for i := range subs {
		clerk, mail := fmt.Sprintf("user_%d", i), fmt.Sprintf("u%d@example.com", i)
		e := f.yearlyFrom(t, start).set("event_id", fmt.Sprintf("evt_c%d", i)).set("data.id", fmt.Sprintf("sub_%d", i)).
			set("data.custom_data.clerk_user_id", clerk).set("data.custom_data.email", mail).
			set("data.custom_data.checkout_sig", f.signer.Sign(clerk, mail, start))
		f.mustDeliver(t, e.body())
	}
	now := start.AddDate(0, 3, 5) // months 1, 2 and 3 are due
	var mu sync.Mutex
	var total billing.MonthlyReport
	var start8, done sync.WaitGroup
	start8.Add(1)
	for range 8 {
		done.Add(1)
		go func() {
			defer done.Done()
			start8.Wait()
			rep, err := f.svc.GrantMonths(context.Background(), now)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total.Grants += rep.Grants
			total.Credits += rep.Credits
			mu.Unlock()
		}()
	}
	start8.Done()
	done.Wait()
	require.Equal(t, subs*3, total.Grants)
	var grants, credits int
	require.NoError(t, f.db.Raw(`SELECT count(*), sum(delta) FROM credit_transactions WHERE kind = 'grant'`).Row().Scan(&grants, &credits))
	require.Equal(t, subs*4, grants)
	require.Equal(t, subs*4*5000, credits)
}
