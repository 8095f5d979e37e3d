package billing_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// subscription.past_due mails "payment failed" once per event: ten redeliveries send one, a late past_due
// under a newer snapshot sends none, a later failed renewal (another event) sends its own.
func TestPastDueMailsPaymentFailedOncePerEvent(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	pastDue := func(id string, at time.Time) []byte {
		return sub{eventID: id, eventType: "subscription.past_due", status: "past_due", occurred: at, start: p1Start, end: p1End}.payload()
	}
	for range 10 {
		f.mustDeliver(t, pastDue("evt_pd1", t0.Add(2*time.Hour)))
	}
	f.mustDeliver(t, pastDue("evt_pd_late", t0.Add(time.Hour))) // older than the snapshot applied: not applied
	f.mustDeliver(t, sub{eventID: "evt_ok", eventType: "subscription.activated", status: "active", occurred: t0.Add(3 * time.Hour),
		start: p1Start, end: p1End}.payload())
	for range 3 {
		f.mustDeliver(t, pastDue("evt_pd2", t0.Add(4*time.Hour)))
	}
	require.Equal(t, []string{"subscription_started/sub_1", "payment_failed/sub_1/evt_pd1", "payment_failed/sub_1/evt_pd2"},
		f.mailer.Keys())
	require.Equal(t, state{Status: "past_due", Tier: "pro", UserTier: "pro", Grants: 1, Balance: 1000}, f.state(t), "dunning keeps access")
}
