package billing_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

var (
	sampleT0 = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	// The sample items, as the assertions spell them.
	itemStorageYearly = priStorageYear + " x2 12000 USD every 1 year"
	itemTeamYearly10  = priTeamYear + " x10 30000 USD every 1 year [plan]"
	itemSetup         = priSetup + " x1 5000 USD one-time"
	itemStorageMonth  = priStorageMonth + " x1 1000 USD every 1 month"
	itemProMonth      = priProMonth + " x1 1500 USD every 1 month [plan]"
	itemTeamMonth3    = priTeamMonth + " x3 3000 USD every 1 month [plan]"
)

// sampleEvents builds the lifecycle events of the samples, signed by f's checkout signer.
type sampleEvents struct {
	yearly, monthly, toTeam, renewal, canceled event
	// teamMonthly is a subscription.created of the monthly sample bought as Team for 3 seats.
	teamMonthly event
}

func (f *fixture) samples(t *testing.T) sampleEvents {
	t.Helper()
	return sampleEvents{
		yearly:   f.signed(loadEvent(t, "subscription_created_yearly_team.json"), sampleT0),
		monthly:  f.signed(loadEvent(t, "subscription_created_monthly_pro.json"), sampleT0),
		toTeam:   f.signed(loadEvent(t, "subscription_updated_to_team.json"), sampleT0),
		renewal:  f.signed(loadEvent(t, "transaction_completed_renewal.json"), sampleT0),
		canceled: f.signed(loadEvent(t, "subscription_canceled.json"), sampleT0),
		teamMonthly: f.signed(loadEvent(t, "subscription_updated_to_team.json").
			as("evt_01hv8x2a9nf5b4ba3fk7rwwqy0", "subscription.created", sampleT0.Add(2*time.Second)).
			set("data.transaction_id", "txn_01hv8wptq8987qeep44cyrewp9"), sampleT0),
	}
}

// paid is the transaction.completed of an update's prorated charge (origin subscription_update, a total
// above zero) at, for the plan price × quantity: the renewal sample re-dated, its billing period the
// stretch from at to the end of the month.
func paid(renewal event, eventID, txnID string, at time.Time, plan any, quantity int) event {
	return renewal.as(eventID, "transaction.completed", at).set("data.id", txnID).set("data.origin", "subscription_update").
		set("data.items.1", map[string]any{"price": plan, "quantity": quantity, "proration": map[string]any{
			"rate": "0.83", "billing_period": map[string]any{"starts_at": at, "ends_at": "2026-12-01T10:00:00Z"}}}).
		set("data.billing_period", map[string]any{"starts_at": at, "ends_at": "2026-12-01T10:00:00Z"})
}

// seats is a later subscription.updated of the yearly Team sample with another seat count.
func seats(yearly event, eventID string, at time.Time, quantity int) event {
	return yearly.as(eventID, "subscription.updated", at).set("data.items.1.quantity", quantity)
}

// Paddle's own payload shapes for created, updated (upgrade, downgrade, seats up, seats down), renewal and
// cancellation: each sequence delivered ten times in order, and ten times each in a shuffled order with
// Paddle-like retries, ends in the same state without doubling a grant.
func TestPaddleSamplesReplayedAndReordered(t *testing.T) {
	t.Parallel()
	nov4, dec1 := time.Date(2026, 11, 4, 15, 20, 11, 0, time.UTC), time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		events func(s sampleEvents) []event
		want   sampleState
		grants []string // in order only: reordered deliveries may split a month's total into other top-ups
		// createdFirst: the shuffled runs deliver the first event (subscription.created) before the rest.
		// A month whose first delivered snapshot is already the upgraded plan is granted that plan's
		// allowance (docs/billing.md), so an upgrade's outcome depends on created coming first.
		createdFirst bool
	}{
		{
			name:   "created: yearly team for 10 seats, add-on first, one-time setup fee, discount",
			events: func(s sampleEvents) []event { return []event{s.yearly} },
			want: sampleState{Status: "active", Tier: "team", UserTier: "team", Quantity: 10, Balance: 5000,
				Items: []string{itemStorageYearly, itemTeamYearly10, itemSetup}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=5000"},
		},
		{
			name: "seats up mid-month: the snapshot alone grants nothing",
			events: func(s sampleEvents) []event {
				return []event{s.yearly, seats(s.yearly, "evt_seats15", sampleT0.AddDate(0, 0, 5), 15)}
			},
			want: sampleState{Status: "active", Tier: "team", UserTier: "team", Quantity: 15, Balance: 5000,
				Items: []string{itemStorageYearly, priTeamYear + " x15 30000 USD every 1 year [plan]", itemSetup}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=5000"},
		},
		{
			name: "seats up mid-month, paid: the payment tops up the rest of the month once",
			events: func(s sampleEvents) []event {
				at := sampleT0.AddDate(0, 0, 5) // 25 of the month's 30 days left: 2500 × 25/30
				return []event{s.yearly, seats(s.yearly, "evt_seats15", at, 15),
					paid(s.renewal, "evt_paid15", "txn_seats15", at.Add(time.Second), s.yearly.get("data.items.1.price"), 15)}
			},
			createdFirst: true,
			want: sampleState{Status: "active", Tier: "team", UserTier: "team", Quantity: 15, Balance: 5000 + 2083,
				Items: []string{itemStorageYearly, priTeamYear + " x15 30000 USD every 1 year [plan]", itemSetup}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=5000",
				"grant:" + sampleSub + ":2026-11-01T10:00:00Z:paid:txn_seats15=2083"},
		},
		{
			name: "seats down grant nothing back",
			events: func(s sampleEvents) []event {
				at := sampleT0.AddDate(0, 0, 5)
				return []event{s.yearly, seats(s.yearly, "evt_seats15", at, 15),
					paid(s.renewal, "evt_paid15", "txn_seats15", at.Add(time.Second), s.yearly.get("data.items.1.price"), 15),
					seats(s.yearly, "evt_seats12", sampleT0.AddDate(0, 0, 10), 12)}
			},
			createdFirst: true,
			want: sampleState{Status: "active", Tier: "team", UserTier: "team", Quantity: 12, Balance: 5000 + 2083,
				Items: []string{itemStorageYearly, priTeamYear + " x12 30000 USD every 1 year [plan]", itemSetup}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=5000",
				"grant:" + sampleSub + ":2026-11-01T10:00:00Z:paid:txn_seats15=2083"},
		},
		{
			name:         "upgrade pro to team x3 without its payment grants nothing more",
			events:       func(s sampleEvents) []event { return []event{s.monthly, s.toTeam} },
			createdFirst: true,
			want: sampleState{Status: "active", Tier: "team", UserTier: "team", Quantity: 3, Balance: 1000,
				Items: []string{itemStorageMonth, itemTeamMonth3}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=1000"},
		},
		{
			name: "upgrade pro to team x3, paid: the difference for the time left in the month",
			events: func(s sampleEvents) []event {
				// Paid 4 Nov 15:20:12: 26d 18:39:48 of 30 days left, 500 × 2313588 / 2592000.
				return []event{s.monthly, s.toTeam, paid(s.renewal, "evt_paid_team", "txn_team", nov4.Add(time.Second),
					s.toTeam.get("data.items.1.price"), 3)}
			},
			createdFirst: true,
			want: sampleState{Status: "active", Tier: "team", UserTier: "team", Quantity: 3, Balance: 1000 + 446,
				Items: []string{itemStorageMonth, itemTeamMonth3}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=1000",
				"grant:" + sampleSub + ":2026-11-01T10:00:00Z:paid:txn_team=446"},
		},
		{
			name: "pro, team, pro again within a minute and no payment: exactly the pro allowance",
			events: func(s sampleEvents) []event {
				return []event{s.monthly, s.toTeam, s.monthly.as("evt_back_to_pro", "subscription.updated", nov4.Add(time.Minute))}
			},
			createdFirst: true,
			want: sampleState{Status: "active", Tier: "pro", UserTier: "pro", Quantity: 1, Balance: 1000,
				Items: []string{itemStorageMonth, itemProMonth}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=1000"},
		},
		{
			name: "downgrade team x3 to pro takes effect at once and grants nothing more",
			events: func(s sampleEvents) []event {
				return []event{s.teamMonthly, s.monthly.as("evt_to_pro", "subscription.updated", nov4)}
			},
			want: sampleState{Status: "active", Tier: "pro", UserTier: "pro", Quantity: 1, Balance: 1500,
				Items: []string{itemStorageMonth, itemProMonth}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=1500"},
		},
		{
			name: "renewal grants the new period's month once, beside its subscription.updated",
			events: func(s sampleEvents) []event {
				rolled := s.monthly.as("evt_rolled", "subscription.updated", dec1.Add(5*time.Second)).period(dec1, dec1.AddDate(0, 1, 0))
				return []event{s.monthly, s.renewal, rolled}
			},
			want: sampleState{Status: "active", Tier: "pro", UserTier: "pro", Quantity: 1, Balance: 2000,
				Items: []string{itemStorageMonth, itemProMonth}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=1000", "grant:" + sampleSub + ":2026-12-01T10:00:00Z=1000"},
		},
		{
			name: "renewal after an upgrade grants at the renewal's plan and seats",
			events: func(s sampleEvents) []event {
				renewal := s.renewal.clone().set("data.items.1", map[string]any{
					"price": s.toTeam.get("data.items.1.price"), "quantity": 3, "proration": nil})
				return []event{s.monthly, s.toTeam, renewal}
			},
			createdFirst: true,
			want: sampleState{Status: "active", Tier: "team", UserTier: "team", Quantity: 3, Balance: 2500,
				Items: []string{itemStorageMonth, itemTeamMonth3}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=1000", "grant:" + sampleSub + ":2026-12-01T10:00:00Z=1500"},
		},
		{
			name:   "cancellation as Paddle sends it (no billing period) ends access at once",
			events: func(s sampleEvents) []event { return []event{s.monthly, s.canceled} },
			want: sampleState{Status: "canceled", Tier: "pro", UserTier: "free", Quantity: 1, Balance: 1000,
				Items: []string{itemStorageMonth, itemProMonth}},
			grants: []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=1000"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, pgtest.New(t), sampleTiers)
			f.deliverInOrder(t, tc.events(f.samples(t)))
			require.Equal(t, tc.want, f.sampleState(t), "in order")
			require.Equal(t, tc.grants, f.grantsOf(t), "in order")

			for seed := range uint64(3) {
				f := newFixture(t, pgtest.New(t), sampleTiers)
				events := tc.events(f.samples(t))
				if tc.createdFirst {
					f.mustDeliver(t, events[0].body())
				}
				f.deliverShuffled(t, events, seed)
				require.Equal(t, tc.want, f.sampleState(t), "shuffled, seed %d", seed)
			}
		})
	}
}

// The discount object is stored as Paddle sent it (it carries no amount); the currency with it.
func TestSampleDiscountAndCurrencyAreStored(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	f.mustDeliver(t, f.samples(t).yearly.body())
	var discountID, currency string
	require.NoError(t, f.db.Raw(`SELECT discount->>'id', currency_code FROM subscriptions`).Row().Scan(&discountID, &currency))
	require.Equal(t, "dsc_01hv8wy3sq0xznv8gh4d4xbkpd", discountID)
	require.Equal(t, "USD", currency)
}

// Items of two tiers in one subscription: the higher tier (later in the tiers file) decides, and the audit
// row says so. Items of no tier at all fail the delivery until the tiers file lists the plan.
func TestPlanItemChoice(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	f := newFixture(t, d, sampleTiers)
	s := f.samples(t)
	both := s.monthly.clone().set("data.items.0", s.toTeam.get("data.items.1")) // team x3 first, pro second
	f.mustDeliver(t, f.signed(both, sampleT0).body())
	require.Equal(t, "team", f.sampleState(t).Tier)
	var others string
	require.NoError(t, f.db.Raw(`SELECT details->>'other_tiered_prices' FROM audit_logs WHERE action = 'subscription.created'`).Scan(&others).Error)
	require.JSONEq(t, `["`+priProMonth+`"]`, others)

	d2 := pgtest.New(t)
	addonOnly := `tiers:
  - name: free
  - name: pro
    paddle_price_ids: [pri_someone_else]
`
	broken := newFixture(t, d2, addonOnly)
	_, err := broken.deliver(t, s.monthly.body())
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	require.ErrorContains(t, err, "unknown paddle price id: none of "+priStorageMonth+", "+priProMonth)
	fixed := newFixture(t, d2, sampleTiers) // the operator adds the plan's price and restarts
	fixed.mustDeliver(t, s.monthly.body())
	require.Equal(t, 1000, fixed.sampleState(t).Balance)
}

// A checkout signature issued before v2 bound a price too. It still binds its user when it bound the plan's
// price or another price of the tiers file (a plan changed before the creation was delivered), never when
// it bound a price no tier lists (the add-on that comes first in items): that one is a forgery, archived
// failed and answered 200.
func TestV1CheckoutSignatureBindsThroughAnyTierPrice(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	monthly := f.samples(t).monthly
	wrong := monthly.clone().set("data.custom_data.checkout_sig", billing.SignV1(f.signer, "user_1", "ada@example.com", priStorageMonth, sampleT0))
	res, err := f.deliver(t, wrong.body())
	require.NoError(t, err, "a forgery is permanent: archived failed, answered 200")
	require.Equal(t, webhook.ReasonUnprocessable, res.Reason)
	var reason string
	require.NoError(t, f.db.Raw(`SELECT error_message FROM webhook_events WHERE processing_status = 'failed' LIMIT 1`).Scan(&reason).Error)
	require.Contains(t, reason, "invalid checkout signature")

	for i, price := range []string{priProMonth, priTeamYear} {
		d := newFixture(t, pgtest.New(t), sampleTiers)
		v1 := monthly.clone().set("data.custom_data.checkout_sig", billing.SignV1(d.signer, "user_1", "ada@example.com", price, sampleT0))
		d.mustDeliver(t, v1.body())
		require.Equal(t, "pro", d.sampleState(t).Tier, "case %d: signed for %s", i, price)
	}
}
