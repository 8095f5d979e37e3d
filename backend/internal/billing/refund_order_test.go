package billing_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// adjustmentOf is an approved full refund of transaction txn of subscription sub, delivered at at.
func adjustmentOf(sub, txn string, at time.Time) []byte {
	b, _ := json.Marshal(map[string]any{"event_id": "evt_refund_" + txn, "event_type": "adjustment.updated", "occurred_at": at,
		"data": map[string]any{"id": "adj_" + txn, "action": "refund", "status": "approved", "type": "full",
			"transaction_id": txn, "subscription_id": sub, "customer_id": "ctm_1"}})
	return b
}

// Period 2 is renewed and paid; then period 1's transaction.completed arrives late (a retry after an
// outage, a pull by the events sync, an operator's replay). It must not become "the transaction that
// paid the current period": a full refund of period 2's payment must still revoke access, and a refund
// of period 1's must not.
func TestALateEarlierPeriodTransactionDoesNotShieldTheCurrentPeriodFromARefund(t *testing.T) {
	t.Parallel()
	p2Start, p2End := p1End, p1End.AddDate(0, 1, 0)
	for _, tc := range []struct {
		name, refunded, wantTier string
	}{
		{"the refund of period 2's payment revokes access", "txn_evt_r2", "free"},
		{"a refund of period 1's payment keeps access", "txn_evt_r1", "pro"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.mustDeliver(t, f.created(t0, "evt_c").payload())
			f.mustDeliver(t, sub{eventID: "evt_p2", eventType: "subscription.updated", status: "active",
				occurred: p2Start.Add(time.Second), start: p2Start, end: p2End}.payload())
			f.mustDeliver(t, renewal("evt_r2", p2Start, p2End)) // pays period 2
			f.mustDeliver(t, renewal("evt_r1", p1Start, p1End)) // period 1's, late
			require.Equal(t, 2, f.state(t).Grants, "one grant per period; the late one grants nothing")

			f.mustDeliver(t, adjustmentOf("sub_1", tc.refunded, p2Start.Add(time.Hour)))
			require.Equal(t, tc.wantTier, f.state(t).UserTier)
		})
	}
}

// adjustmentAction is an approved full adjustment of action (refund, chargeback, credit...) of txn.
func adjustmentAction(eventID, action, txn string, sub any) []byte {
	b, _ := json.Marshal(map[string]any{"event_id": eventID, "event_type": "adjustment.created", "occurred_at": t0.Add(2 * time.Hour),
		"data": map[string]any{"id": "adj_" + eventID, "action": action, "status": "approved", "type": "full",
			"transaction_id": txn, "subscription_id": sub, "customer_id": "ctm_1"}})
	return b
}

// Which approved full adjustments of the paying transaction revoke access: a refund and a chargeback, not a
// credit (money moved to the customer's balance, the period still paid for). An adjustment of a one-off
// purchase has no subscription: audited, nothing else.
func TestWhichAdjustmentsRevokeAccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ action, wantTier string }{{"chargeback", "free"}, {"refund", "free"}, {"credit", "pro"}} {
		t.Run(tc.action, func(t *testing.T) {
			t.Parallel()
			f := setup(t)
			f.mustDeliver(t, f.created(t0, "evt_c").payload())
			f.mustDeliver(t, adjustmentAction("evt_a", tc.action, "txn_1", "sub_1"))
			require.Equal(t, tc.wantTier, f.state(t).UserTier)
		})
	}
	t.Run("one-off", func(t *testing.T) {
		t.Parallel()
		f := setup(t)
		f.mustDeliver(t, adjustmentAction("evt_a1", "refund", "txn_one_off", nil))
		f.mustDeliver(t, adjustmentAction("evt_a2", "refund", "txn_one_off", ""))
		var audits int
		require.NoError(t, f.db.Raw(`SELECT count(*) FROM audit_logs WHERE action = 'adjustment.created'`).Scan(&audits).Error)
		require.Equal(t, 2, audits)
	})
}

// The transaction that paid the period arrives again after its refund (its transaction.completed
// delivered late, after the subscription.created that named it): it is the same payment, refunded, so it
// must not lift the revocation. A subscription created without a transaction (a trial) takes its first
// paying transaction as the payer.
func TestTheRefundedPaymentArrivingAgainKeepsAccessRevoked(t *testing.T) {
	t.Parallel()
	subID := "sub_1"
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload()) // names txn_1
	f.mustDeliver(t, adjustmentOf("sub_1", "txn_1", t0.Add(time.Hour)))
	require.Equal(t, "free", f.state(t).UserTier)
	f.mustDeliver(t, txnCompleted("evt_txn_1", "txn_1", &subID, "web", "1500", p1Start, p1End))
	require.Equal(t, "free", f.state(t).UserTier, "the refunded payment itself restores nothing")

	f = setup(t)
	trial := f.created(t0, "evt_c")
	trial.txn = ""
	f.mustDeliver(t, trial.payload())
	f.mustDeliver(t, txnCompleted("evt_txn_2", "txn_2", &subID, "web", "1500", p1Start, p1End))
	f.mustDeliver(t, adjustmentOf("sub_1", "txn_2", t0.Add(time.Hour)))
	require.Equal(t, "free", f.state(t).UserTier, "txn_2 became the payer")
}
