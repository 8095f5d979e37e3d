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
