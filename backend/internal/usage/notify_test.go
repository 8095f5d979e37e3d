package usage_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/usage"
)

// A threshold crossed by concurrent events notifies once: one row, one audit row, one email, one hook
// run; redelivered events and a second delivery run add nothing.
func TestAThresholdCrossedByConcurrentEventsNotifiesOnce(t *testing.T) {
	t.Parallel()
	var hooked atomic.Int32
	hook := usage.Hook{Name: "count", Run: func(ctx context.Context, tx *gorm.DB, n usage.Notification) error {
		hooked.Add(1)
		return tx.Exec(`INSERT INTO app_notes (threshold) VALUES (?)`, n.Threshold).Error
	}}
	e := setup(t, hook)
	require.NoError(t, e.db.Gorm.Exec(`CREATE TABLE app_notes (threshold text)`).Error)
	other := e.service(e.db.Gorm, hook)
	u := e.user(t, "free", 0)
	const n = 30 // 30 events of 4 units against a limit of 100: the 20th crosses 80 %, the 25th 100 %
	events := func(i int) usage.Event {
		return usage.Event{UserID: u, Feature: "api_calls", Quantity: 4, Key: fmt.Sprintf("e-%d", i)}
	}
	for round := range 2 { // the second round redelivers every event
		together(n, func(i int) error {
			svc := e.svc
			if i%2 == 1 {
				svc = other
			}
			_, err := svc.RecordEvents(context.Background(), []usage.Event{events(i)})
			require.NoError(t, err, "round %d", round)
			return nil
		})
	}
	require.Equal(t, int64(100), e.used(t, u, "api_calls"))
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM usage_notifications WHERE user_id = ?`, u))
	_, err := e.svc.DeliverNotifications(context.Background(), 100)
	require.NoError(t, err)
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM usage_notifications WHERE notified_at IS NULL`))
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'usage.threshold_reached' AND user_id = ?`, u))
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM app_notes`))
	require.Equal(t, int32(2), hooked.Load())
	require.Len(t, e.mail.sent, 2)
	require.Contains(t, e.mail.sent[0], "usage_threshold ")
}

// A hook that fails rolls its delivery back; the next run delivers it once.
func TestAFailingHookIsRetriedByTheNextRun(t *testing.T) {
	t.Parallel()
	var fail atomic.Bool
	fail.Store(true)
	runs := 0
	e := setup(t, usage.Hook{Name: "flaky", Run: func(context.Context, *gorm.DB, usage.Notification) error {
		if fail.Load() {
			return errors.New("crm down")
		}
		runs++
		return nil
	}})
	u := e.user(t, "free", 0)
	r := e.record(t, usage.Event{UserID: u, Feature: "api_calls", Quantity: 85, Key: "k"})
	require.Equal(t, []string{usage.ThresholdLimit80}, r.Notified)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM usage_notifications WHERE notified_at IS NULL`),
		"the event is recorded; its notification waits")
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'usage.threshold_reached'`))
	fail.Store(false)
	n, err := e.svc.DeliverNotifications(context.Background(), 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = e.svc.DeliverNotifications(context.Background(), 10)
	require.NoError(t, err)
	require.Equal(t, 0, n)
	require.Equal(t, 1, runs)
}

func TestLowBalanceNotifiesOncePerMonth(t *testing.T) {
	t.Parallel()
	e := setup(t)
	u := e.user(t, "free", 30)
	var notified []string
	for i := range 5 { // 30 → 25 → 20 → 15 → 10 → 5: below 10 only at the last
		r := e.record(t, usage.Event{UserID: u, Feature: "generations", Quantity: 1, Key: fmt.Sprintf("g%d", i)})
		require.Equal(t, usage.StatusRecorded, r.Status)
		notified = append(notified, r.Notified...)
	}
	require.Equal(t, []string{usage.ThresholdLowBalance}, notified)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'usage.threshold_reached'
		AND details->>'threshold' = 'low_balance'`), "delivered right after the commit")
}
