package billing_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// The credit rules of docs/billing.md that depend on the tiers file: rollover, the end of an allowance
// when the subscription stops paying for it, and credit packs.

const priPack = "pri_01hcredits500000000000000"

// rolloverTiers is sampleTiers with pro's allowance carrying at most 300 into the next month, and a pack.
const rolloverTiers = `tiers:
  - name: free
    signup_credits: 25
  - name: pro
    paddle_price_ids: [` + priProMonth + `, ` + priProYear + `]
    monthly_credits: 1000
    rollover: {max: 300}
  - name: team
    paddle_price_ids: [` + priTeamMonth + `, ` + priTeamYear + `]
    monthly_credits: 500
    credits_per_seat: true
    rollover: none
credit_packs:
  - {price_id: ` + priPack + `, credits: 500, expires_in: 8760h}
`

// userOne is the sample's user.
func (f *fixture) userOne(t *testing.T) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, f.db.Raw(`SELECT id FROM users WHERE clerk_user_id = 'user_1'`).Row().Scan(&id))
	return id
}

// available is the user's spendable balance by the fixture's clock.
func (f *fixture) available(t *testing.T) int {
	t.Helper()
	n, err := f.ledger.Balance(context.Background(), f.userOne(t))
	require.NoError(t, err)
	return n
}

// mustVerifyLedger runs the ledger's checks over the fixture's database.
func (f *fixture) mustVerifyLedger(t *testing.T) {
	t.Helper()
	rep, err := verify.Run(context.Background(), f.db, credits.Checks(), verify.Scope{})
	require.NoError(t, err)
	for _, r := range rep.Results {
		require.Empty(t, r.Violations, r.Check.Name)
	}
}

// packPurchase is the transaction.completed of a one-time checkout of the pack (no subscription).
func (f *fixture) packPurchase(t *testing.T, eventID, txnID string, at time.Time, quantity int) event {
	t.Helper()
	e := f.samples(t).renewal.as(eventID, "transaction.completed", at).set("data.id", txnID).
		set("data.origin", "web").set("data.subscription_id", nil).set("data.billing_period", nil).
		set("data.items", []any{map[string]any{"price": map[string]any{"id": priPack}, "quantity": quantity}})
	return f.signed(e, at.Add(-time.Minute))
}

// refund is an approved adjustment of a transaction.
func refund(eventID, txnID, subID string, at time.Time, typ string) event {
	data := map[string]any{"id": "adj_" + eventID, "action": "refund", "status": "approved", "type": typ,
		"transaction_id": txnID, "customer_id": "ctm_01hv6y1jedq4p1n0yqn5ba3ky4"}
	if subID != "" {
		data["subscription_id"] = subID
	}
	return event{"event_id": eventID, "event_type": "adjustment.updated", "occurred_at": at.Format(time.RFC3339Nano), "data": data}
}

// A month's allowance ends with its month: what is left carries into the next month up to the tier's cap
// (pro: 300), and the carry rolls on under the same cap; nothing of it is spendable once its month ended.
func TestAllowanceCarriesAtMostTheCapIntoTheNextMonth(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), rolloverTiers)
	s := f.samples(t)
	f.clock.Set(sampleT0.Add(time.Hour))
	f.mustDeliver(t, s.monthly.body()) // Nov: 1000, expiring Dec 1 10:00
	ctx := context.Background()
	_, _, _, err := f.ledger.Charge(ctx, f.userOne(t), 400, "c1", "")
	require.NoError(t, err)

	dec1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	f.clock.Set(dec1.Add(time.Minute))
	require.Equal(t, 0, f.available(t), "November's 600 ended with November")
	for range 3 {
		f.mustDeliver(t, s.renewal.body()) // Dec: 1000, and min(600, 300) carried
	}
	require.Equal(t, 1300, f.available(t))
	require.Equal(t, []string{"grant:" + sampleSub + ":2026-11-01T10:00:00Z=1000", "grant:" + sampleSub + ":2026-12-01T10:00:00Z=1000"}, f.grantsOf(t))

	// January: December's 1300 unspent carry at most 300 again; the expiry job got there first this time.
	jan1 := dec1.AddDate(0, 1, 0)
	rep, err := f.ledger.ExpireDue(ctx, jan1)
	require.NoError(t, err)
	require.Equal(t, 1300, rep.Credits)
	f.clock.Set(jan1.Add(time.Minute))
	jan := s.renewal.as("evt_jan", "transaction.completed", jan1.Add(6*time.Second)).set("data.id", "txn_jan").
		set("data.billing_period", map[string]any{"starts_at": jan1, "ends_at": jan1.AddDate(0, 1, 0)})
	f.mustDeliver(t, jan.body())
	require.Equal(t, 1300, f.available(t))
	f.mustVerifyLedger(t)
}

// With rollover: none, the month's allowance is gone when the next one is granted; with a cap of 0 nothing
// rolls either. A tier without the key (sampleTiers) keeps every month's allowance, as before.
func TestAllowanceWithoutRolloverNeverCarries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tiers string
		want        int
	}{
		{"rollover none", rolloverTiers, 1500},
		{"no rollover key", sampleTiers, 1500 + 1500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, pgtest.New(t), tc.tiers)
			s := f.samples(t)
			f.clock.Set(sampleT0.Add(time.Hour))
			f.mustDeliver(t, s.teamMonthly.body()) // team x3: 1500
			dec1 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
			f.clock.Set(dec1.Add(time.Minute))
			renewal := s.renewal.clone().set("data.items.1", map[string]any{
				"price": s.toTeam.get("data.items.1.price"), "quantity": 3, "proration": nil})
			f.mustDeliver(t, renewal.body())
			require.Equal(t, tc.want, f.available(t))
			f.mustVerifyLedger(t)
		})
	}
}

// When a subscription stops paying for its tier (canceled and over, paused, a full refund of its period),
// what is left of its allowance is written off at once; purchased credits stay. A tier without a rollover
// rule keeps its allowance (sampleTiers).
func TestAllowanceEndsWhenTheSubscriptionStopsPaying(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tiers string
		end         func(f *fixture, s sampleEvents) event
		want        int
	}{
		{"canceled, period over", rolloverTiers, func(f *fixture, s sampleEvents) event { return s.canceled }, 500},
		{"paused", rolloverTiers, func(f *fixture, s sampleEvents) event {
			return s.monthly.as("evt_paused", "subscription.paused", sampleT0.AddDate(0, 0, 3)).set("data.status", "paused")
		}, 500},
		{"full refund", rolloverTiers, func(f *fixture, s sampleEvents) event {
			return refund("evt_refund", s.monthly.get("data.transaction_id").(string), sampleSub, sampleT0.AddDate(0, 0, 3), "full")
		}, 500},
		{"canceled, tier without rollover", sampleTiers, func(f *fixture, s sampleEvents) event { return s.canceled }, 1000 + 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tiers := tc.tiers
			if tiers == sampleTiers {
				tiers += "credit_packs:\n  - {price_id: " + priPack + ", credits: 500}\n"
			}
			f := newFixture(t, pgtest.New(t), tiers)
			s := f.samples(t)
			f.clock.Set(sampleT0.AddDate(0, 0, 2))
			f.mustDeliver(t, s.monthly.body())
			f.mustDeliver(t, f.packPurchase(t, "evt_pack", "txn_pack", sampleT0.AddDate(0, 0, 1), 1).body())
			require.Equal(t, 1500, f.available(t))
			for range 3 {
				f.mustDeliver(t, tc.end(f, s).body())
			}
			require.Equal(t, "free", f.sampleState(t).UserTier)
			require.Equal(t, tc.want, f.available(t))
			f.mustVerifyLedger(t)
		})
	}
}

// A credit pack's transaction grants its credits once (×quantity), as purchased credits that expire the
// pack's expires_in after the purchase; a refund of it writes off what is unspent, once.
func TestCreditPackIsGrantedOnceAndRefundedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), rolloverTiers)
	at := sampleT0.AddDate(0, 0, 1)
	f.clock.Set(at.Add(time.Hour))
	purchase := f.packPurchase(t, "evt_pack", "txn_pack", at, 2)
	for range 10 {
		f.mustDeliver(t, purchase.body())
	}
	require.Equal(t, 1000, f.available(t))
	var expires time.Time
	require.NoError(t, f.db.Raw(`SELECT expires_at FROM credit_buckets WHERE category = 'purchased'`).Row().Scan(&expires))
	require.Equal(t, at.Add(8760*time.Hour), expires.UTC())

	_, _, _, err := f.ledger.Charge(context.Background(), f.userOne(t), 300, "c1", "")
	require.NoError(t, err)
	for range 5 {
		f.mustDeliver(t, refund("evt_refund", "txn_pack", "", at.Add(2*time.Hour), "partial").body())
	}
	require.Equal(t, 0, f.available(t), "what was unspent of the pack is written off; the 300 spent stay spent")
	var expired int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM credit_transactions WHERE kind = 'expire'`).Row().Scan(&expired))
	require.Equal(t, 1, expired)
	f.mustVerifyLedger(t)
}

// A pack's refund racing spends of its credits: every spend either took credits before the write-off or
// is refused after it; nothing is spent twice and the ledger stays consistent.
func TestPackRefundRacingSpends(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), rolloverTiers)
	at := sampleT0.AddDate(0, 0, 1)
	f.clock.Set(at.Add(time.Hour))
	f.mustDeliver(t, f.packPurchase(t, "evt_pack", "txn_pack", at, 1).body())
	user := f.userOne(t)

	const spenders = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	spent := make(chan int, spenders)
	for i := range spenders {
		wg.Go(func() {
			<-start
			if _, _, _, err := f.ledger.Charge(context.Background(), user, 100, "c"+string(rune('a'+i)), ""); err == nil {
				spent <- 100
			} else {
				require.ErrorIs(t, err, credits.ErrInsufficient)
			}
		})
	}
	wg.Go(func() {
		<-start
		f.mustDeliver(t, refund("evt_refund", "txn_pack", "", at.Add(2*time.Hour), "full").body())
	})
	close(start)
	wg.Wait()
	close(spent)
	total := 0
	for n := range spent {
		total += n
	}
	var written int
	require.NoError(t, f.db.Raw(`SELECT coalesce(-sum(delta), 0) FROM credit_transactions WHERE kind = 'expire'`).Row().Scan(&written))
	require.Equal(t, 500, total+written, "spent %d, written off %d", total, written)
	require.Equal(t, 0, f.available(t))
	f.mustVerifyLedger(t)
}

// A paused subscription is not paid for: its user is on free and the monthly-grants job skips it until
// subscription.resumed brings the tier back.
func TestPausedSubscriptionIsOnFreeUntilResumed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	s := f.samples(t)
	f.mustDeliver(t, s.yearly.body())
	paused := s.yearly.as("evt_paused", "subscription.paused", sampleT0.AddDate(0, 0, 3)).set("data.status", "paused")
	f.mustDeliver(t, paused.body())
	require.Equal(t, "free", f.sampleState(t).UserTier)
	rep, err := f.svc.GrantMonths(context.Background(), sampleT0.AddDate(0, 2, 1))
	require.NoError(t, err)
	require.Zero(t, rep.Grants, "no monthly grants while paused")

	resumed := s.yearly.as("evt_resumed", "subscription.resumed", sampleT0.AddDate(0, 2, 2))
	f.mustDeliver(t, resumed.body())
	require.Equal(t, "team", f.sampleState(t).UserTier)
}

// Paddle sends a paused subscription without a current billing period (null, as for a canceled one): the
// snapshot is stored, the user drops to free, and the monthly job has nothing to start from.
func TestAPausedSnapshotWithoutAPeriodIsStored(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pgtest.New(t), sampleTiers)
	s := f.samples(t)
	f.mustDeliver(t, s.yearly.body())
	paused := s.yearly.as("evt_paused", "subscription.paused", sampleT0.AddDate(0, 0, 3)).set("data.status", "paused").
		set("data.current_billing_period", nil)
	f.mustDeliver(t, paused.body())
	require.Equal(t, "free", f.sampleState(t).UserTier)
	rep, err := f.svc.GrantMonths(context.Background(), sampleT0.AddDate(0, 2, 1))
	require.NoError(t, err)
	require.Zero(t, rep.Grants)
}
