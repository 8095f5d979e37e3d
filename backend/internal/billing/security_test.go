package billing_test

import (
	"encoding/json"
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

// Item 2: a card update (a zero-value transaction.completed with origin subscription_payment_method_change)
// neither restores access after a full refund nor hides the paying transaction from a later refund. Only a
// transaction that pays restores it.
func TestItem2CardUpdateDoesNotRestoreAccessAfterAFullRefund(t *testing.T) {
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

// Item 2, the other half: a card update after the paying transaction must not become "the transaction that
// paid the period", or a full refund of the real payment would no longer revoke access.
func TestItem2CardUpdateDoesNotShieldThePaymentFromARefund(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	f.mustDeliver(t, transaction("evt_card", "txn_card", "subscription_payment_method_change", "0", p1Start, p1End))
	f.mustDeliver(t, adjustment("evt_refund", "txn_1", "approved", "full"))
	require.Equal(t, "free", f.state(t).UserTier)
}
