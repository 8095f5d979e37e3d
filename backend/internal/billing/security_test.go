package billing_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// transaction is a transaction.completed for sub_1 with an origin and a total (minor units).
func transaction(eventID, txn, origin, total string, start, end time.Time) []byte {
	b, _ := json.Marshal(map[string]any{"event_id": eventID, "event_type": "transaction.completed", "occurred_at": start.Add(time.Minute),
		"data": map[string]any{"id": txn, "origin": origin, "subscription_id": "sub_1", "customer_id": "ctm_1",
			"billing_period": map[string]any{"starts_at": start, "ends_at": end},
			"details":        map[string]any{"totals": map[string]any{"total": total}},
			"items":          []any{map[string]any{"price": map[string]any{"id": "pri_pro_monthly"}}}}})
	return b
}

// The hole "a card update restoring access after a refund" (docs/security.md): a card update (a zero-value
// transaction.completed with origin subscription_payment_method_change) neither restores access after a full refund nor
// hides the paying transaction from a later refund. Only a transaction that pays restores it.
func TestCardUpdateDoesNotRestoreAccessAfterAFullRefund(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	f.mustDeliver(t, adjustment("evt_refund", "txn_1", "approved", "full"))
	require.Equal(t, "free", f.state(t).UserTier)

	f.mustDeliver(t, transaction("evt_card", "txn_card", "subscription_payment_method_change", "0", p1Start, p1End))
	require.Equal(t, "free", f.state(t).UserTier, "a card update pays nothing")
	f.mustDeliver(t, transaction("evt_upd0", "txn_upd0", "subscription_update", "0", p1Start, p1End))
	require.Equal(t, "free", f.state(t).UserTier, "a zero-value update pays nothing either")

	f.mustDeliver(t, transaction("evt_upd", "txn_upd", "subscription_update", "700", p1Start, p1End))
	require.Equal(t, "pro", f.state(t).UserTier, "an update that charged pays the period")
}

// The hole "a card update restoring access after a refund" (docs/security.md), the other half: a card update after the
// paying transaction must not become "the transaction that paid the period", or a full refund of the real payment would
// no longer revoke access.
func TestCardUpdateDoesNotShieldThePaymentFromARefund(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	f.mustDeliver(t, transaction("evt_card", "txn_card", "subscription_payment_method_change", "0", p1Start, p1End))
	f.mustDeliver(t, adjustment("evt_refund", "txn_1", "approved", "full"))
	require.Equal(t, "free", f.state(t).UserTier)
}

// The hole "another customer's portal" (docs/security.md): an event with no subscription row and no signature resolves
// through the customer only when our own API bound that customer to a user; "the first user ever stored with this
// customer id" (here user_1, whose subscription carries ctm_1 from a payload) collects nothing.
func TestCustomerFallbackOnlyThroughTheBinding(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload()) // user_1's sub_1 carries customer ctm_1; user_1 is not bound
	unsigned := func(eventID, subID string) []byte {
		body := string(sub{eventID: eventID, eventType: "subscription.updated", status: "active", occurred: t0, start: p1Start, end: p1End}.payload())
		return []byte(replaceOnce(body, `"id":"sub_1"`, `"id":"`+subID+`"`))
	}
	_, err := f.deliver(t, unsigned("evt_u2", "sub_2"))
	require.ErrorContains(t, err, "cannot resolve the user", "a customer id seen in a payload binds nobody")

	require.NoError(t, f.db.Exec(`INSERT INTO users (clerk_user_id, email, email_verified, paddle_customer_id)
		VALUES ('user_bound', 'bound@example.com', true, 'ctm_1')`).Error)
	f.mustDeliver(t, unsigned("evt_u3", "sub_3"))
	var owner string
	require.NoError(t, f.db.Raw(`SELECT u.clerk_user_id FROM subscriptions s JOIN users u ON u.id = s.user_id
		WHERE s.paddle_subscription_id = 'sub_3'`).Scan(&owner).Error)
	require.Equal(t, "user_bound", owner, "the bound user, not the first one seen with the customer")
}

// A second live subscription for a user (two tabs, two checkouts) is recorded — the index used to reject it
// on every retry, charged and never recorded — flagged, audited once and the operators are mailed once.
func TestASecondLiveSubscriptionIsRecordedAndFlagged(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c1").payload())
	second := string(f.created(t0.Add(time.Minute), "evt_c2").payload())
	second = replaceOnce(second, `"id":"sub_1"`, `"id":"sub_2"`)
	for range 3 {
		f.mustDeliver(t, []byte(second))
	}
	var subs, flagged, audits int
	require.NoError(t, f.db.Raw(`SELECT (SELECT count(*) FROM subscriptions WHERE status = 'active'),
		(SELECT count(*) FROM subscriptions WHERE duplicate_subscription AND paddle_subscription_id = 'sub_2'),
		(SELECT count(*) FROM audit_logs WHERE action = 'subscription.duplicate')`).Row().Scan(&subs, &flagged, &audits))
	require.Equal(t, []int{2, 1, 1}, []int{subs, flagged, audits})
	var alerts []string
	for _, k := range f.mailer.Keys() {
		if strings.HasPrefix(k, "duplicate_subscription/") {
			alerts = append(alerts, k)
		}
	}
	require.Equal(t, []string{"duplicate_subscription/sub_2/ops@example.com", "duplicate_subscription/sub_2/cto@example.com"}, alerts)
}

// Two live subscriptions, pro and then team (two checkouts): canceling the newer one, at once or at its
// period's end through the expiry job, leaves the user on the older one's tier, not the canceled one's
// (found by the two-subscriptions scenario of `fabrica simulate`: the user stayed on team).
func TestCancelingTheNewerOfTwoSubscriptionsLeavesTheOlderOnesTier(t *testing.T) {
	t.Parallel()
	for _, keepPeriod := range []bool{false, true} {
		f := setup(t)
		f.clock.Set(t0.Add(time.Hour))
		f.mustDeliver(t, f.created(t0, "evt_c1").payload())
		team := sub{eventID: "evt_c2", eventType: "subscription.created", status: "active", occurred: t0.Add(time.Minute),
			start: p1Start, end: p1End, txn: "txn_2", price: "pri_team_monthly",
			customData: f.signedCustomData("user_1", "ada@example.com", t0)}
		f.mustDeliver(t, []byte(replaceOnce(string(team.payload()), `"id":"sub_1"`, `"id":"sub_2"`)))
		require.Equal(t, "team", f.state(t).UserTier)

		canceled := team
		canceled.eventID, canceled.eventType, canceled.status, canceled.occurred = "evt_x2", "subscription.canceled", "canceled", t0.Add(time.Hour)
		body := string(canceled.payload())
		if !keepPeriod {
			body = replaceOnce(body, `"current_billing_period":{"ends_at":"`+p1End.Format(time.RFC3339)+`","starts_at":"`+p1Start.Format(time.RFC3339)+`"}`,
				`"current_billing_period":null`)
		}
		f.mustDeliver(t, []byte(replaceOnce(body, `"id":"sub_1"`, `"id":"sub_2"`)))
		if keepPeriod {
			require.Equal(t, "team", f.state(t).UserTier, "the canceled period is paid until its end")
			n, err := f.svc.ExpireCanceled(context.Background(), p1End.Add(time.Minute))
			require.NoError(t, err)
			require.Equal(t, 1, n)
		}
		require.Equal(t, "pro", f.state(t).UserTier, "keep period %v", keepPeriod)
	}
}

// The checkout's transaction.completed, subscription.created and .activated arrive in any order. When the
// transaction comes first (no row yet) and .activated is applied before created, the stale created is what
// names the paying transaction: a full refund of the checkout must still revoke (found by the
// refund-variants scenario under `fabrica simulate --chaos`).
func TestARefundOfTheCheckoutRevokesWhateverOrderItsEventsCameIn(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, transaction("evt_t1", "txn_1", "web", "1500", p1Start, p1End))
	created := f.created(t0, "evt_c1")
	activated := created
	activated.eventID, activated.eventType, activated.occurred, activated.txn = "evt_a1", "subscription.activated", t0.Add(time.Millisecond), ""
	f.mustDeliver(t, activated.payload())
	f.mustDeliver(t, created.payload())
	f.mustDeliver(t, adjustment("evt_refund", "txn_1", "approved", "full"))
	require.Equal(t, "free", f.state(t).UserTier)
}
