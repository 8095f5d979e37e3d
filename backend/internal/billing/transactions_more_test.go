package billing_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// txnCompleted is a transaction.completed of subscription sub ("" for none, nil for a one-off purchase's
// absent field), with origin and total, and billing period start..end (none when start is zero).
func txnCompleted(eventID, id string, sub *string, origin, total string, start, end time.Time) []byte {
	data := map[string]any{"id": id, "origin": origin, "customer_id": "ctm_1",
		"details": map[string]any{"totals": map[string]any{"total": total}},
		"items":   []any{map[string]any{"price": map[string]any{"id": "pri_pro_monthly"}}}}
	if sub != nil {
		data["subscription_id"] = *sub
	}
	if !start.IsZero() {
		data["billing_period"] = map[string]any{"starts_at": start, "ends_at": end}
	}
	b, _ := json.Marshal(map[string]any{"event_id": eventID, "event_type": "transaction.completed", "occurred_at": t0.Add(time.Hour), "data": data})
	return b
}

// A one-off purchase (no subscription_id, or an empty one) is audited and changes nothing else: no
// grant, no subscription, no failed delivery.
func TestAOneOffTransactionIsAuditedOnly(t *testing.T) {
	t.Parallel()
	f := setup(t)
	empty := ""
	f.mustDeliver(t, txnCompleted("evt_one_off", "txn_one_off", nil, "web", "900", time.Time{}, time.Time{}))
	f.mustDeliver(t, txnCompleted("evt_one_off_2", "txn_one_off_2", &empty, "web", "900", time.Time{}, time.Time{}))
	require.Equal(t, state{}, f.state(t))
	var audits int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM audit_logs WHERE action = 'transaction.completed' AND user_id IS NULL`).Scan(&audits).Error)
	require.Equal(t, 2, audits)
}

// A charge that pays the subscription without a billing period of its own (an update charged at once)
// becomes the transaction that paid the current period: a full refund of it revokes access. And after a
// canceled snapshot without a period, a late paying transaction of the last period is still recorded
// without failing.
func TestAPayingTransactionWithoutAPeriodIsRecorded(t *testing.T) {
	t.Parallel()
	subID := "sub_1"
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	f.mustDeliver(t, txnCompleted("evt_upd", "txn_upd", &subID, "subscription_update", "700", time.Time{}, time.Time{}))
	var audited int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM audit_logs a JOIN users u ON u.id = a.user_id
		WHERE a.action = 'transaction.completed' AND a.resource_id = 'txn_upd' AND u.clerk_user_id = 'user_1'`).Scan(&audited).Error)
	require.Equal(t, 1, audited, "audited with the subscription's user")
	f.mustDeliver(t, adjustmentOf("sub_1", "txn_upd", t0.Add(2*time.Hour)))
	require.Equal(t, "free", f.state(t).UserTier)

	f = setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	f.mustDeliver(t, withoutPeriod(t, sub{eventID: "evt_x", eventType: "subscription.canceled", status: "canceled", occurred: t0.Add(time.Hour)}.payload()))
	f.mustDeliver(t, txnCompleted("evt_late", "txn_late", &subID, "subscription_recurring", "1500", p1Start, p1End))
	require.Equal(t, "canceled", f.state(t).Status)
}

// withoutPeriod drops data.current_billing_period, as Paddle's canceled snapshots do.
func withoutPeriod(t *testing.T, body []byte) []byte {
	t.Helper()
	var e map[string]any
	require.NoError(t, json.Unmarshal(body, &e))
	delete(e["data"].(map[string]any), "current_billing_period")
	b, err := json.Marshal(e)
	require.NoError(t, err)
	return b
}

// A transaction of a subscription that grants nothing (a one-off charge on it) is audited with the
// subscription's user, so it shows in that user's audit trail; one of a subscription not known yet is
// audited without a user rather than failing.
func TestAOneOffChargeOfASubscriptionIsAuditedWithItsUser(t *testing.T) {
	t.Parallel()
	known, unknown := "sub_1", "sub_unknown"
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	f.mustDeliver(t, txnCompleted("evt_charge", "txn_charge", &known, "subscription_charge", "300", time.Time{}, time.Time{}))
	f.mustDeliver(t, txnCompleted("evt_charge_2", "txn_charge_2", &unknown, "subscription_charge", "300", time.Time{}, time.Time{}))
	var rows []struct {
		ResourceID string
		Clerk      *string
	}
	require.NoError(t, f.db.Raw(`SELECT a.resource_id, u.clerk_user_id AS clerk FROM audit_logs a LEFT JOIN users u ON u.id = a.user_id
		WHERE a.action = 'transaction.completed' ORDER BY a.resource_id`).Scan(&rows).Error)
	require.Len(t, rows, 2)
	require.Equal(t, "txn_charge", rows[0].ResourceID)
	require.NotNil(t, rows[0].Clerk, "audited with the subscription's user")
	require.Equal(t, "user_1", *rows[0].Clerk)
	require.Equal(t, "txn_charge_2", rows[1].ResourceID)
	require.Nil(t, rows[1].Clerk, "no user for a subscription not known yet")
}
