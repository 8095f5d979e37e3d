package usage_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

func TestEntitlementsAndCheck(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	u := e.user(t, "free", 22)
	e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 40, Key: "a"})
	e.record(t, usage.Event{UserID: u, Feature: "generations", Quantity: 1, Key: "g"})
	_, err := e.svc.SetGauge(ctx, nil, usage.Event{UserID: u, Feature: "projects", Quantity: 2, Key: "p1"})
	require.NoError(t, err)

	ents, err := e.svc.Entitlements(ctx, u)
	require.NoError(t, err)
	byName := map[string]usage.Entitlement{}
	for _, x := range ents {
		byName[x.Feature] = x
	}
	require.Len(t, ents, 5, "every feature of the tiers file, sso included (disabled on free)")
	api := byName["api_calls"]
	require.True(t, api.Enabled)
	require.Equal(t, int64(40), api.Used)
	require.Equal(t, int64(60), *api.Remaining)
	require.Equal(t, "block", api.Overage)
	require.NotNil(t, api.ResetsAt)
	require.Equal(t, 1, api.ResetsAt.Day(), "a free user's month is the calendar month")
	gen := byName["generations"]
	require.Equal(t, int64(1), gen.Used)
	require.Equal(t, int64(3), *gen.Remaining, "17 credits left cover three units of 5")
	require.Equal(t, 5, gen.CreditsPerUnit)
	require.True(t, gen.ClientReportable)
	require.Equal(t, int64(2), byName["projects"].Used)
	require.False(t, byName["sso"].Enabled)

	for _, tc := range []struct {
		feature  string
		quantity int64
		allowed  bool
		reason   string
	}{
		{"api_calls", 60, true, ""},
		{"api_calls", 61, false, usage.StatusLimitExceeded},
		{"exports", 1000, true, ""}, // overage allowed
		{"generations", 3, true, ""},
		{"generations", 4, false, usage.StatusInsufficientCredits},
		{"projects", 1, true, ""},
		{"projects", 2, false, usage.StatusLimitExceeded},
		{"sso", 0, false, usage.StatusDisabled},
	} {
		d, err := e.svc.Check(ctx, u, tc.feature, tc.quantity)
		require.NoError(t, err)
		require.Equal(t, tc.allowed, d.Allowed, tc.feature)
		require.Equal(t, tc.reason, d.Reason, tc.feature)
	}
	_, err = e.svc.Check(ctx, u, "nope", 1)
	require.ErrorIs(t, err, usage.ErrInvalid)
	_, err = e.svc.Check(ctx, uuid.New(), "api_calls", 1)
	require.ErrorIs(t, err, db.ErrNotFound)
	require.Equal(t, int64(40), e.used(t, u, "api_calls"), "a check records nothing")
}

// A subscriber's month is their grant month: it starts at their period's start, not the 1st.
func TestSubscribersCountInTheirGrantMonth(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "pro", 0)
	r := e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 1, Key: "a"})
	var start time.Time
	require.NoError(t, e.db.Gorm.Raw(`SELECT current_period_start FROM subscriptions WHERE user_id = ?`, u).Row().Scan(&start))
	require.True(t, r.PeriodStart.Equal(start), "%s vs %s", r.PeriodStart, start)
	require.Equal(t, int64(1000), *r.Limit)
}

func TestGauges(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	u := e.user(t, "free", 0)
	set := func(v int64, key string, at time.Time) usage.Result {
		r, err := e.svc.SetGauge(ctx, nil, usage.Event{UserID: u, Feature: "projects", Quantity: v, Key: key, OccurredAt: at})
		require.NoError(t, err)
		return r
	}
	now := time.Now()
	require.Equal(t, int64(2), set(2, "s1", now.Add(-time.Minute)).Used)
	require.Equal(t, usage.StatusDuplicate, set(2, "s1", now.Add(-time.Minute)).Status)
	require.Equal(t, int64(2), set(1, "s0", now.Add(-time.Hour)).Used, "an older set arriving late changes nothing")
	r := set(5, "s2", now)
	require.Equal(t, usage.StatusRecorded, r.Status, "above the limit: recorded, it is what exists")
	require.Equal(t, int64(0), *r.Remaining)
	d, err := e.svc.Check(ctx, u, "projects", 1)
	require.NoError(t, err)
	require.False(t, d.Allowed)
	_, err = e.svc.SetGauge(ctx, nil, usage.Event{UserID: u, Feature: "api_calls", Quantity: 1, Key: "x"})
	require.ErrorIs(t, err, usage.ErrInvalid)
	requireClean(t, e)
}

func TestReservations(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	u := e.user(t, "free", 20)
	by := audit.Actor{Worker: "test"}
	in := func(fn func(tx *gorm.DB) error) { require.NoError(t, e.db.Gorm.Transaction(fn)) }
	ev := usage.Event{UserID: u, Feature: "generations", Quantity: 2, Key: "render-1"}
	in(func(tx *gorm.DB) error {
		_, err := e.svc.Reserve(ctx, tx, by, ev, 0)
		require.ErrorIs(t, err, usage.ErrInvalid, "the deadline is required")
		r, err := e.svc.Reserve(ctx, tx, by, ev, 10*time.Minute)
		require.NoError(t, err)
		require.Equal(t, usage.StatusReserved, r.Status)
		require.Equal(t, 10, *r.Balance)
		r, err = e.svc.Reserve(ctx, tx, by, ev, 10*time.Minute)
		require.NoError(t, err)
		require.Equal(t, usage.StatusDuplicate, r.Status)
		return nil
	})
	require.Equal(t, int64(0), e.used(t, u, "generations"), "a reservation does not count")
	in(func(tx *gorm.DB) error {
		r, err := e.svc.Commit(ctx, tx, by, u, "render-1")
		require.NoError(t, err)
		require.Equal(t, usage.StatusRecorded, r.Status)
		r, err = e.svc.Commit(ctx, tx, by, u, "render-1")
		require.NoError(t, err)
		require.Equal(t, usage.StatusDuplicate, r.Status)
		require.ErrorIs(t, e.svc.Release(ctx, tx, by, u, "render-1", "late"), credits.ErrJobFinished)
		return nil
	})
	require.Equal(t, int64(2), e.used(t, u, "generations"))

	ev2 := usage.Event{UserID: u, Feature: "generations", Quantity: 1, Key: "render-2"}
	in(func(tx *gorm.DB) error {
		_, err := e.svc.Reserve(ctx, tx, by, ev2, time.Minute)
		return err
	})
	in(func(tx *gorm.DB) error {
		require.NoError(t, e.svc.Release(ctx, tx, by, u, "render-2", "gpu lost"))
		require.NoError(t, e.svc.Release(ctx, tx, by, u, "render-2", "again"), "a release is idempotent")
		_, err := e.svc.Commit(ctx, tx, by, u, "render-2")
		require.ErrorIs(t, err, usage.ErrNoReservation)
		require.ErrorIs(t, e.svc.Release(ctx, tx, by, u, "never", ""), usage.ErrNoReservation)
		return nil
	})
	bal, err := e.ledger.Balance(ctx, u)
	require.NoError(t, err)
	require.Equal(t, 10, bal, "the released one came back")
	requireClean(t, e)
}

// The verify checks hold on recorded usage and find a counter changed behind usage's back.
func TestChecksFindACounterThatDisagreesWithItsEvents(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 50)
	e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 7, Key: "a"})
	e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 5, Key: "b"})
	e.record(t, usage.Event{UserID: u, Feature: "generations", Quantity: 1, Key: "c"})
	requireClean(t, e)
	require.NoError(t, e.db.Gorm.Exec(`UPDATE usage_counters SET used = used + 1 WHERE user_id = ? AND feature = 'api_calls'`, u).Error)
	require.NoError(t, e.db.Gorm.Exec(`DELETE FROM usage_events WHERE key = 'c'`).Error)
	rep, err := verify.Run(context.Background(), e.db.Gorm, usage.Checks(), verify.Scope{UserID: &u})
	require.NoError(t, err)
	var found []string
	for _, r := range rep.Results {
		for _, v := range r.Violations {
			found = append(found, v.Check+": "+v.Detail)
		}
	}
	require.ElementsMatch(t, []string{
		"usage.counter_is_sum_of_events: events sum to 12, counter says 13",
		"usage.counter_is_sum_of_events: events sum to 0, counter says 1",
		"usage.claim_has_its_event: no event " + eventIDOf(t, e, "c") + " for this usage claim",
	}, found)
}

func eventIDOf(t *testing.T, e *env, key string) string {
	var id string
	require.NoError(t, e.db.Gorm.Raw(`SELECT event_id::text FROM usage_claims WHERE key = ?`, key).Row().Scan(&id))
	return id
}

func requireClean(t *testing.T, e *env) {
	t.Helper()
	rep, err := verify.Run(context.Background(), e.db.Gorm, usage.Checks(), verify.Scope{})
	require.NoError(t, err)
	require.Zero(t, rep.Violations(), "%+v", rep.Results)
}

func TestRetention(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	u := e.user(t, "free", 0)
	now := time.Now()
	e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 1, Key: "old", OccurredAt: now.Add(-30 * 24 * time.Hour)})
	e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 1, Key: "new"})
	created, err := e.svc.EnsurePartitions(ctx, now)
	require.NoError(t, err)
	require.Zero(t, created, "the migration made them")
	created, err = e.svc.EnsurePartitions(ctx, now.AddDate(0, 5, 0))
	require.NoError(t, err)
	require.Equal(t, 5, created)

	// Ten days on: the old claim is past the window, and so is a retry of its event; both events stay.
	later := e.serviceAt(e.db.Gorm, func() time.Time { return now.Add(10 * 24 * time.Hour) })
	p, err := later.Purge(ctx, now.Add(10*24*time.Hour), 1000)
	require.NoError(t, err)
	require.Equal(t, usage.Purged{Claims: 1}, p)
	rs, err := later.RecordEvents(ctx, []usage.Event{{UserID: u, Feature: "api_calls", Quantity: 1, Key: "old",
		OccurredAt: now.Add(-30 * 24 * time.Hour)}})
	require.NoError(t, err)
	require.Equal(t, usage.StatusTooOld, rs[0].Status)
	// Fifteen months on, the months of both events are dropped.
	p, err = e.svc.Purge(ctx, now.AddDate(1, 3, 0), 1000)
	require.NoError(t, err)
	require.Equal(t, 2, p.Events)
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM usage_events`))
	requireClean(t, e)
}
