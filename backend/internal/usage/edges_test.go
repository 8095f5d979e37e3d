package usage_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/email"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/usage"
)

// A gauge's value is 0..MaxQuantity, both ends included: 0 is a real count (the last project deleted),
// and a negative value is refused before anything is written.
func TestGaugeValueIsZeroUpToMaxQuantity(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	u := e.user(t, "free", 0)
	set := func(v int64, key string) (usage.Result, error) {
		return e.svc.SetGauge(ctx, nil, usage.Event{UserID: u, Feature: "projects", Quantity: v, Key: key})
	}
	r, err := set(2, "two")
	require.NoError(t, err)
	require.Equal(t, int64(2), r.Used)
	r, err = set(0, "zero")
	require.NoError(t, err)
	require.Equal(t, usage.StatusRecorded, r.Status)
	require.Equal(t, int64(0), r.Used)
	_, err = set(-1, "negative")
	require.ErrorIs(t, err, usage.ErrInvalid)
	_, err = set(usage.MaxQuantity+1, "too many")
	require.ErrorIs(t, err, usage.ErrInvalid)
	r, err = set(usage.MaxQuantity, "max")
	require.NoError(t, err)
	require.Equal(t, int64(usage.MaxQuantity), r.Used)
	requireClean(t, e)
}

// A tier whose only feature is a credits feature still reads the balance: what a user can afford is
// the balance over the unit price, whatever other features the tier has or lacks.
func TestACreditsOnlyTierReadsTheBalance(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	tiers, err := billing.ParseTiers([]byte(`tiers:
  - name: free
    features:
      generations: {credits: 5}
  - name: pro
    paddle_price_ids: [pri_pro]
`))
	require.NoError(t, err)
	e := &env{db: d, tiers: tiers, mail: &fakeMail{}, ledger: credits.New(d.Gorm, credits.Config{})}
	e.svc = e.service(d.Gorm)
	ctx := context.Background()
	u := e.user(t, "free", 22)

	ents, err := e.svc.Entitlements(ctx, u)
	require.NoError(t, err)
	var gen *usage.Entitlement
	for i := range ents {
		if ents[i].Feature == "generations" {
			gen = &ents[i]
		}
	}
	require.NotNil(t, gen)
	require.Equal(t, int64(4), *gen.Remaining, "22 credits cover four units of 5")
	dec, err := e.svc.Check(ctx, u, "generations", 4)
	require.NoError(t, err)
	require.True(t, dec.Allowed)
	dec, err = e.svc.Check(ctx, u, "generations", 5)
	require.NoError(t, err)
	require.False(t, dec.Allowed)
}

// A delivery run delivers at most its limit: the rest wait, in order, for the next run.
func TestDeliverNotificationsStopsAtItsLimit(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	down.Store(true)
	e := setup(t, usage.Hook{Name: "crm", Run: func(context.Context, *gorm.DB, usage.Notification) error {
		if down.Load() {
			return errors.New("crm down")
		}
		return nil
	}})
	u := e.user(t, "free", 0)
	r := e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 100, Key: "all"})
	require.Equal(t, []string{usage.ThresholdLimit80, usage.ThresholdLimit100}, r.Notified)
	pending := func() int64 {
		return e.count(t, `SELECT count(*) FROM usage_notifications WHERE notified_at IS NULL`)
	}
	require.Equal(t, int64(2), pending(), "both wait: the hook failed right after the commit")
	down.Store(false)
	n, err := e.svc.DeliverNotifications(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, int64(1), pending())
	n, err = e.svc.DeliverNotifications(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, int64(0), pending())
}

// The threshold email says whether usage goes on past the limit, from the feature as the user's tier
// grants it: exports allow overage on free, api_calls block.
func TestThresholdEmailSaysWhetherUsageGoesOn(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 0)
	e.record(t, usage.Event{UserID: u, Feature: "exports", Quantity: 9, Key: "x"})
	e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 90, Key: "a"})
	require.Len(t, e.mail.data, 2)
	overage := map[string]bool{}
	for _, d := range e.mail.data {
		td, ok := d.(email.UsageThresholdData)
		require.True(t, ok, "%T", d)
		overage[td.Feature] = td.Overage
	}
	require.Equal(t, map[string]bool{"exports": true, "api_calls": false}, overage)
}

// Notifications caused by one batch of events are delivered right after its commit, for every user in
// it: the run's limit grows with the users (ten each), so eleven users' crossings all go out at once.
func TestABatchDeliversTheNotificationsOfEveryUserInIt(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var events []usage.Event
	for range 11 {
		events = append(events, usage.Event{UserID: e.user(t, "free", 0), Feature: "api_calls", Quantity: 85, Key: "k"})
	}
	rs, err := e.svc.RecordEvents(context.Background(), events)
	require.NoError(t, err)
	for _, r := range rs {
		require.Equal(t, []string{usage.ThresholdLimit80}, r.Notified)
	}
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM usage_notifications WHERE notified_at IS NULL`))
	require.Len(t, e.mail.sent, 11)
}

// A batch holds up to MaxBatch events, that many included; one more is refused whole.
func TestABatchOfMaxBatchEventsIsRecorded(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "pro", 0)
	events := make([]usage.Event, usage.MaxBatch+1)
	for i := range events {
		events[i] = usage.Event{UserID: u, Feature: "exports", Quantity: 1, Key: fmt.Sprintf("b-%d", i)}
	}
	_, err := e.svc.RecordEvents(context.Background(), events)
	require.ErrorIs(t, err, usage.ErrInvalid)
	rs, err := e.svc.RecordEvents(context.Background(), events[:usage.MaxBatch])
	require.NoError(t, err)
	require.Equal(t, map[string]int{usage.StatusRecorded: usage.MaxBatch}, statuses(rs))
}

// A key repeated within one batch is counted once, and the events after the repeat are still recorded.
func TestAKeyRepeatedInABatchDoesNotStopTheRest(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 0)
	rs, err := e.svc.RecordEvents(context.Background(), []usage.Event{
		{UserID: u, Feature: "api_calls", Quantity: 3, Key: "a"},
		{UserID: u, Feature: "api_calls", Quantity: 3, Key: "a"},
		{UserID: u, Feature: "api_calls", Quantity: 5, Key: "b"},
	})
	require.NoError(t, err)
	require.Equal(t, usage.StatusRecorded, rs[0].Status)
	require.Equal(t, usage.StatusRecorded, rs[2].Status)
	require.Equal(t, int64(8), e.used(t, u, "api_calls"))

	// The same key again in a batch with another quantity is a conflict, not a duplicate.
	rs, err = e.svc.RecordEvents(context.Background(), []usage.Event{
		{UserID: u, Feature: "api_calls", Quantity: 1, Key: "c"},
		{UserID: u, Feature: "api_calls", Quantity: 2, Key: "c"},
	})
	require.NoError(t, err)
	require.Equal(t, usage.StatusRecorded, rs[0].Status)
	require.Equal(t, usage.StatusKeyConflict, rs[1].Status)
}

// A credits event that would cost more than any balance can hold is refused as insufficient before the
// ledger sees it: MaxQuantity units of 5 credits are 5 billion, past a 32-bit balance.
func TestACreditsChargeBeyondAnyBalanceIsInsufficient(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 100)
	r := e.record(t, usage.Event{UserID: u, Feature: "generations", Quantity: usage.MaxQuantity, Key: "huge"})
	require.Equal(t, usage.StatusInsufficientCredits, r.Status)
	requireClean(t, e)
}

// The low-balance notification comes with the charge that takes the balance below the tier's
// low_balance (10 on free), not before: a balance of exactly 10 is not below it, and a balance of 10 going
// to 5 is the crossing.
func TestLowBalanceNotifiesAtTheCrossingOnly(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 30)
	for i, want := range []bool{false, false, false, false, true} { // 25, 20, 15, 10, 5
		r := e.record(t, usage.Event{UserID: u, Feature: "generations", Quantity: 1, Key: fmt.Sprintf("g%d", i)})
		require.Equal(t, usage.StatusRecorded, r.Status)
		require.Equal(t, want, len(r.Notified) > 0, "charge %d, balance %d", i+1, *r.Balance)
	}
}

// A key repeated within a batch gets its first appearance's answer: a refusal is repeated as that refusal,
// not reported as a duplicate of something recorded.
func TestARepeatOfARefusedKeyInABatchIsRefusedToo(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 0)
	ev := usage.Event{UserID: u, Feature: "api_calls", Quantity: 101, Key: "too-many"}
	rs, err := e.svc.RecordEvents(context.Background(), []usage.Event{ev, ev})
	require.NoError(t, err)
	require.Equal(t, usage.StatusLimitExceeded, rs[0].Status)
	require.Equal(t, usage.StatusLimitExceeded, rs[1].Status)
}

// Event ids are UUIDv7, time-ordered, so each event row lands at the right edge of its indexes; a random
// id would change no answer, only the cost of every insert into the monthly partitions.
func TestEventIDsAreUUIDv7(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 0)
	r := e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 1, Key: "v7"})
	require.Equal(t, uuid.Version(7), r.EventID.Version())
	var ids []uuid.UUID
	require.NoError(t, e.db.Gorm.Raw(`SELECT id FROM usage_events`).Scan(&ids).Error)
	require.Equal(t, []uuid.UUID{r.EventID}, ids)
}
