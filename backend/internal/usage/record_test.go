package usage_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/usage"
)

func TestRecordCountsAnEventOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 0)
	ev := usage.Event{UserID: u, Feature: "api_calls", Quantity: 3, Key: "req-1"}
	first := e.record(t, ev)
	require.Equal(t, usage.StatusRecorded, first.Status)
	require.Equal(t, int64(3), first.Used)
	require.Equal(t, int64(97), *first.Remaining)
	require.NotEqual(t, uuid.Nil, first.EventID)

	again := e.record(t, ev)
	require.Equal(t, usage.StatusDuplicate, again.Status)
	require.Equal(t, first.EventID, again.EventID, "a duplicate returns the original event")
	require.Equal(t, int64(3), again.Used)

	other := e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 4, Key: "req-1"})
	require.Equal(t, usage.StatusKeyConflict, other.Status, "the key was recorded for another quantity")
	require.Equal(t, int64(3), e.used(t, u, "api_calls"))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM usage_events WHERE user_id = ?`, u))

	// Another user's key of the same name is another event.
	v := e.user(t, "free", 0)
	require.Equal(t, usage.StatusRecorded, e.record(t, usage.Event{UserID: v, Feature: "api_calls", Quantity: 3, Key: "req-1"}).Status)
}

func TestRecordRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t)
	free, pro := e.user(t, "free", 0), e.user(t, "pro", 0)
	ctx := context.Background()
	rs, err := e.svc.RecordEvents(ctx, []usage.Event{
		{UserID: free, Feature: "api_calls", Quantity: 101, Key: "a"},                                         // past the block limit
		{UserID: free, Feature: "exports", Quantity: 15, Key: "b"},                                            // allow: recorded past it
		{UserID: free, Feature: "generations", Quantity: 1, Key: "c"},                                         // no credits
		{UserID: uuid.New(), Feature: "api_calls", Quantity: 1, Key: "d"},                                     // no such user
		{UserID: pro, Feature: "api_calls", Quantity: 1, Key: "e", OccurredAt: time.Now().AddDate(0, 0, -36)}, // older than the window
		{UserID: free, Feature: "api_calls", Quantity: 2, Key: "f"},
		{UserID: free, Feature: "api_calls", Quantity: 2, Key: "f"}, // the same key twice in one batch
	})
	require.NoError(t, err)
	want := []string{usage.StatusLimitExceeded, usage.StatusRecorded, usage.StatusInsufficientCredits, usage.StatusUnknownUser,
		usage.StatusTooOld, usage.StatusRecorded, usage.StatusDuplicate}
	for i, r := range rs {
		require.Equal(t, want[i], r.Status, "event %d", i)
	}
	require.Equal(t, int64(15), rs[1].Used)
	require.Equal(t, int64(0), *rs[1].Remaining)
	require.Equal(t, rs[5].EventID, rs[6].EventID)
	require.Equal(t, int64(2), e.used(t, free, "api_calls"))
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM usage_claims WHERE key IN ('a', 'c', 'd', 'e')`),
		"a refusal leaves no claim")

	// sso is a switch: nothing to record; a gauge is set, not recorded; an unknown feature is a bug.
	for _, ev := range []usage.Event{
		{UserID: pro, Feature: "sso", Quantity: 1, Key: "x"},
		{UserID: pro, Feature: "projects", Quantity: 1, Key: "x"},
		{UserID: pro, Feature: "nope", Quantity: 1, Key: "x"},
		{UserID: pro, Feature: "api_calls", Quantity: 0, Key: "x"},
		{UserID: pro, Feature: "api_calls", Quantity: 1, Key: ""},
		{UserID: pro, Feature: "api_calls", Quantity: 1, Key: "x", OccurredAt: time.Now().Add(time.Hour)},
	} {
		_, err := e.svc.RecordEvents(ctx, []usage.Event{{UserID: pro, Feature: "api_calls", Quantity: 1, Key: "ok"}, ev})
		require.ErrorIs(t, err, usage.ErrInvalid, "%+v", ev)
		var fe *usage.FieldError
		require.True(t, errors.As(err, &fe))
		require.Contains(t, fe.Field, "events[1].")
	}
	require.Equal(t, int64(0), e.used(t, pro, "api_calls"), "an invalid batch records nothing")
}

// A refused event keeps no key: after an upgrade its retry is decided again, not replayed.
func TestRefusedEventIsDecidedAgainAfterAnUpgrade(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 0)
	ev := usage.Event{UserID: u, Feature: "api_calls", Quantity: 150, Key: "big-job"}
	require.Equal(t, usage.StatusLimitExceeded, e.record(t, ev).Status)
	require.NoError(t, e.db.Gorm.Exec(`UPDATE users SET current_tier = 'pro' WHERE id = ?`, u).Error)
	r := e.record(t, ev)
	require.Equal(t, usage.StatusRecorded, r.Status)
	require.Equal(t, int64(1000), *r.Limit)
	require.Equal(t, usage.StatusDuplicate, e.record(t, ev).Status)
}

// Record inside the app's own transaction: the usage, the charge and the app's row commit or roll back
// together, and a refusal leaves the transaction usable.
func TestRecordInTheCallersTransaction(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 12)
	require.NoError(t, e.db.Gorm.Exec(`CREATE TABLE app_rows (id serial, user_id uuid)`).Error)
	ctx := context.Background()
	boom := errors.New("the app changed its mind")
	err := e.db.Gorm.Transaction(func(tx *gorm.DB) error {
		r, err := e.svc.Record(ctx, tx, usage.Event{UserID: u, Feature: "generations", Quantity: 1, Key: "gen-1"})
		require.NoError(t, err)
		require.Equal(t, usage.StatusRecorded, r.Status)
		require.NoError(t, tx.Exec(`INSERT INTO app_rows (user_id) VALUES (?)`, u).Error)
		return boom
	})
	require.ErrorIs(t, err, boom)
	bal, err := e.ledger.Balance(ctx, u)
	require.NoError(t, err)
	require.Equal(t, 12, bal, "rolled back with the app's row")
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM usage_claims`))

	require.NoError(t, e.db.Gorm.Transaction(func(tx *gorm.DB) error {
		r, err := e.svc.Record(ctx, tx, usage.Event{UserID: u, Feature: "generations", Quantity: 3, Key: "gen-2"})
		require.NoError(t, err)
		require.Equal(t, usage.StatusInsufficientCredits, r.Status, "15 credits, 12 held")
		require.Equal(t, 12, *r.Balance)
		r, err = e.svc.Record(ctx, tx, usage.Event{UserID: u, Feature: "generations", Quantity: 2, Key: "gen-3"})
		require.NoError(t, err, "the refusal left the transaction usable")
		require.Equal(t, usage.StatusRecorded, r.Status)
		require.Equal(t, 10, r.Charged)
		require.Equal(t, 2, *r.Balance)
		require.Equal(t, []string{usage.ThresholdLowBalance}, r.Notified, "2 is below the tier's low_balance of 10")
		return tx.Exec(`INSERT INTO app_rows (user_id) VALUES (?)`, u).Error
	}))
	require.Equal(t, int64(2), e.used(t, u, "generations"))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM app_rows`))
	bal, err = e.ledger.Balance(ctx, u)
	require.NoError(t, err)
	require.Equal(t, 2, bal)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM credit_transactions WHERE kind = 'charge' AND job_id = 'usage:gen-3'`))
}

// N copies of one event from two services (two app instances) on one database: one record.
func TestCopiesOfAnEventAcrossTwoInstancesRecordOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	other := e.service(e.db.Gorm)
	u := e.user(t, "free", 50)
	for _, feature := range []string{"api_calls", "generations"} {
		const n = 20
		ev := usage.Event{UserID: u, Feature: feature, Quantity: 2, Key: "copy-" + feature}
		rs := together(n, func(i int) usage.Result {
			svc := e.svc
			if i%2 == 1 {
				svc = other
			}
			r, err := svc.RecordEvents(context.Background(), []usage.Event{ev})
			require.NoError(t, err)
			return r[0]
		})
		require.Equal(t, map[string]int{usage.StatusRecorded: 1, usage.StatusDuplicate: n - 1}, statuses(rs), feature)
		require.Equal(t, int64(2), e.used(t, u, feature))
		require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM usage_events WHERE key = ?`, ev.Key))
	}
	bal, err := e.ledger.Balance(context.Background(), u)
	require.NoError(t, err)
	require.Equal(t, 40, bal, "charged once: 2 × 5")
}

// Events racing for the last units of a block limit: exactly the limit is recorded, never more.
func TestEventsRacingForTheLastUnitsRecordExactlyTheLimit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 0)
	require.Equal(t, usage.StatusRecorded, e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 90, Key: "warm"}).Status)
	const n = 24 // 24 events of 1 unit for the last 10, in transactions of their own and batches of three
	rs := together(n/3, func(i int) []usage.Result {
		var evs []usage.Event
		for j := range 3 {
			evs = append(evs, usage.Event{UserID: u, Feature: "api_calls", Quantity: 1, Key: fmt.Sprintf("last-%d-%d", i, j)})
		}
		r, err := e.svc.RecordEvents(context.Background(), evs)
		require.NoError(t, err)
		return r
	})
	var all []usage.Result
	for _, r := range rs {
		all = append(all, r...)
	}
	require.Equal(t, map[string]int{usage.StatusRecorded: 10, usage.StatusLimitExceeded: n - 10}, statuses(all))
	require.Equal(t, int64(100), e.used(t, u, "api_calls"))
	require.Equal(t, int64(100), e.count(t, `SELECT sum(quantity) FROM usage_events WHERE user_id = ?`, u))
}

// A credits feature racing the ledger's own spends: the balance never goes below zero.
func TestCreditsFeatureRacingASpendNeverOverdraws(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 52)
	const n = 20
	type outcome struct {
		usage bool
		ok    bool
	}
	rs := together(n, func(i int) outcome {
		if i%2 == 0 {
			r, err := e.svc.RecordEvents(context.Background(), []usage.Event{{UserID: u, Feature: "generations", Quantity: 1, Key: fmt.Sprintf("g-%d", i)}})
			require.NoError(t, err)
			return outcome{usage: true, ok: r[0].Status == usage.StatusRecorded}
		}
		_, _, _, err := e.ledger.Charge(context.Background(), u, 5, fmt.Sprintf("spend-%d", i), "other work")
		return outcome{ok: err == nil}
	})
	recorded, spent := 0, 0
	for _, o := range rs {
		switch {
		case o.ok && o.usage:
			recorded++
		case o.ok:
			spent++
		}
	}
	require.Equal(t, 10, recorded+spent, "52 credits cover ten charges of 5")
	bal, err := e.ledger.Balance(context.Background(), u)
	require.NoError(t, err)
	require.Equal(t, 2, bal)
	require.Equal(t, int64(recorded), e.used(t, u, "generations"))
}
