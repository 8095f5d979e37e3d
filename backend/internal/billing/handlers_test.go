package billing_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs/jobstest"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const (
	webhookSecret  = "pdl_ntfset_billing_test"
	checkoutSecret = "billing-test-checkout-secret-0123456789"
)

type fixture struct {
	db       *gorm.DB
	clock    *testClock
	ledger   *credits.Service
	svc      *billing.Service
	pipeline *webhook.Pipeline
	mailer   *jobstest.Mailer
	signer   *billing.CheckoutSigner
}

func newFixture(t *testing.T, d *pgtest.DB, tiersYAML string) *fixture {
	t.Helper()
	tiers, err := billing.LoadTiers("")
	if tiersYAML != "" {
		tiers, err = billing.ParseTiers([]byte(tiersYAML))
	}
	require.NoError(t, err)
	f := &fixture{db: d.Gorm, clock: &testClock{}, mailer: &jobstest.Mailer{}, signer: billing.NewCheckoutSigner(checkoutSecret)}
	f.ledger = credits.New(d.Gorm, credits.Config{Now: f.clock.Now})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.svc = billing.New(billing.Deps{DB: d.Gorm, Tiers: tiers, Ledger: f.ledger, Jobs: f.mailer, Signer: f.signer,
		Erasures: account.NewErasures("billing-test-erasure-tombstone-key-0123456789"), Log: log, Now: f.clock.Now},
		billing.Config{AppName: "Fabrica", AlertEmails: []string{"ops@example.com", "cto@example.com"}})
	sig, err := webhook.NewPaddleSignature([]string{webhookSecret}, 5*time.Minute)
	require.NoError(t, err)
	f.pipeline = webhook.New(webhook.Deps{DB: d.Gorm, Log: log}, &webhook.Provider{
		Name: webhook.ProviderPaddle, Verifier: sig, SignatureHeader: webhook.PaddleSignatureHeader,
		ReadEnvelope: webhook.PaddleEnvelope, Handlers: f.svc.PaddleHandlers(),
	})
	return f
}

// testClock is the ledger's clock in a fixture: the wall clock until a test sets it (expiries are decided
// by it, and the sample events are dated in 2026).
type testClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *testClock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = at
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return time.Now()
	}
	return c.at
}

func setup(t *testing.T) *fixture { return newFixture(t, pgtest.New(t), "") }

var (
	t0      = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	p1Start = t0
	p1End   = t0.AddDate(0, 1, 0)
)

// sub describes a subscription snapshot event.
type sub struct {
	eventID, eventType, status, price string
	occurred                          time.Time
	start, end                        time.Time
	customData                        map[string]any
	scheduled                         map[string]any
	txn                               string
}

func (f *fixture) signedCustomData(clerkID, mail string, issued time.Time) map[string]any {
	return map[string]any{"clerk_user_id": clerkID, "email": mail, "checkout_sig": f.signer.Sign(clerkID, mail, issued)}
}

func (s sub) payload() []byte {
	if s.price == "" {
		s.price = "pri_pro_monthly"
	}
	data := map[string]any{
		"id": "sub_1", "status": s.status, "customer_id": "ctm_1",
		"current_billing_period": map[string]any{"starts_at": s.start, "ends_at": s.end},
		"items":                  []any{map[string]any{"price": map[string]any{"id": s.price}}},
		"custom_data":            s.customData, "scheduled_change": s.scheduled,
	}
	if s.txn != "" {
		data["transaction_id"] = s.txn
	}
	b, _ := json.Marshal(map[string]any{"event_id": s.eventID, "event_type": s.eventType, "occurred_at": s.occurred, "data": data})
	return b
}

func (f *fixture) deliver(t *testing.T, body []byte) (webhook.Result, error) {
	t.Helper()
	h := http.Header{}
	h.Set(webhook.PaddleSignatureHeader, webhook.SignPaddle(webhookSecret, time.Now(), body))
	return f.pipeline.Ingest(context.Background(), webhook.ProviderPaddle, h, body)
}

func (f *fixture) mustDeliver(t *testing.T, body []byte) {
	t.Helper()
	_, err := f.deliver(t, body)
	require.NoError(t, err)
}

func (f *fixture) created(occurred time.Time, eventID string) sub {
	return sub{eventID: eventID, eventType: "subscription.created", status: "active", occurred: occurred,
		start: p1Start, end: p1End, txn: "txn_1",
		customData: f.signedCustomData("user_1", "ada@example.com", occurred.Add(-time.Minute))}
}

type state struct {
	Status, Tier, UserTier string
	Grants, Balance        int
}

func (f *fixture) state(t *testing.T) state {
	t.Helper()
	var s state
	require.NoError(t, f.db.Raw(`SELECT coalesce((SELECT status FROM subscriptions WHERE paddle_subscription_id = 'sub_1'), ''),
		coalesce((SELECT tier FROM subscriptions WHERE paddle_subscription_id = 'sub_1'), ''),
		coalesce((SELECT current_tier FROM users WHERE clerk_user_id = 'user_1'), ''),
		(SELECT count(*) FROM credit_transactions WHERE kind = 'grant'),
		(SELECT coalesce(sum(delta), 0) FROM credit_transactions)`).Row().Scan(&s.Status, &s.Tier, &s.UserTier, &s.Grants, &s.Balance))
	return s
}

func TestSubscriptionCreatedReplayedTenTimes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	body := f.created(t0, "evt_created").payload()
	for range 10 {
		f.mustDeliver(t, body)
	}
	require.Equal(t, state{Status: "active", Tier: "pro", UserTier: "pro", Grants: 1, Balance: 1000}, f.state(t))
	require.Equal(t, []string{"subscription_started/sub_1"}, f.mailer.Keys())
}

func TestEverySyncEventReplayedTenTimes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	for i, tc := range []struct {
		typ, status, wantUserTier string
		wantBalance               int
	}{
		{"subscription.activated", "active", "pro", 1000},
		{"subscription.updated", "active", "pro", 1000},
		{"subscription.past_due", "past_due", "pro", 1000}, // dunning keeps access
		{"subscription.paused", "paused", "free", 0},       // not paid for: free, the month's allowance ended
		{"subscription.resumed", "active", "pro", 0},       // the month was granted once already
		{"subscription.trialing", "trialing", "pro", 0},
	} {
		body := sub{eventID: "evt_" + tc.typ, eventType: tc.typ, status: tc.status, occurred: t0.Add(time.Duration(i+1) * time.Minute),
			start: p1Start, end: p1End}.payload()
		for range 10 {
			f.mustDeliver(t, body)
		}
		require.Equal(t, state{Status: tc.status, Tier: "pro", UserTier: tc.wantUserTier, Grants: 1, Balance: tc.wantBalance}, f.state(t), tc.typ)
	}
}

func TestCanceledKeepsTierUntilPeriodEndThenExpires(t *testing.T) {
	t.Parallel()
	f := setup(t)
	future := time.Now().Add(24 * time.Hour)
	c := f.created(t0, "evt_c")
	c.end = future
	f.mustDeliver(t, c.payload())
	canceled := sub{eventID: "evt_x", eventType: "subscription.canceled", status: "canceled", occurred: t0.Add(time.Hour), start: p1Start, end: future}
	for range 10 {
		f.mustDeliver(t, canceled.payload())
	}
	require.Equal(t, "pro", f.state(t).UserTier, "access continues until the paid period ends")
	require.Equal(t, []string{"subscription_started/sub_1", "subscription_canceled/sub_1"}, f.mailer.Keys())

	n, err := f.svc.ExpireCanceled(context.Background(), time.Now())
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = f.svc.ExpireCanceled(context.Background(), future.Add(time.Second))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = f.svc.ExpireCanceled(context.Background(), future.Add(time.Second))
	require.NoError(t, err)
	require.Zero(t, n, "expiry downgrades once")
	require.Equal(t, "free", f.state(t).UserTier)
}

func TestCanceledAfterPeriodEndDowngradesAtOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload()) // p1End is in the past relative to now
	f.mustDeliver(t, sub{eventID: "evt_x", eventType: "subscription.cancelled", status: "canceled", occurred: t0.Add(time.Hour), start: p1Start, end: p1End}.payload())
	require.Equal(t, state{Status: "canceled", Tier: "pro", UserTier: "free", Grants: 1, Balance: 0}, f.state(t),
		"pro has a rollover rule: its allowance ends with the subscription")
}

// subscription.updated delivered before subscription.created ends in the same state as the right order,
// even when it carries another price (a switch to yearly) than the checkout began with: both carry the
// checkout's custom_data, whose signature names the user, not the plan.
func TestUpdatedBeforeCreated(t *testing.T) {
	t.Parallel()
	f := setup(t)
	updated := sub{eventID: "evt_u", eventType: "subscription.updated", status: "active", occurred: t0.Add(time.Hour),
		start: p1Start, end: p1End, price: "pri_pro_yearly", customData: f.created(t0, "evt_c").customData,
		scheduled: map[string]any{"action": "cancel", "effective_at": p1End}}
	f.mustDeliver(t, updated.payload())
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	require.Equal(t, state{Status: "active", Tier: "pro", UserTier: "pro", Grants: 1, Balance: 1000}, f.state(t))
	var price string
	var scheduled bool
	require.NoError(t, f.db.Raw(`SELECT paddle_price_id, scheduled_change IS NOT NULL FROM subscriptions`).Row().Scan(&price, &scheduled))
	require.Equal(t, "pri_pro_yearly", price, "the newer snapshot wins")
	require.True(t, scheduled)
}

// created and activated with the same occurred_at, concurrently: both succeed, one row, one grant.
func TestCreatedActivatedRace(t *testing.T) {
	t.Parallel()
	for round := range 5 {
		f := setup(t)
		created := f.created(t0, "evt_created").payload()
		activated := sub{eventID: "evt_activated", eventType: "subscription.activated", status: "active", occurred: t0,
			start: p1Start, end: p1End, customData: f.signedCustomData("user_1", "ada@example.com", t0)}.payload()
		start := make(chan struct{})
		errs := make(chan error, 2)
		for _, body := range [][]byte{created, activated} {
			go func() { <-start; _, err := f.deliver(t, body); errs <- err }()
		}
		close(start)
		require.NoError(t, <-errs, round)
		require.NoError(t, <-errs, round)
		var rows int
		require.NoError(t, f.db.Raw(`SELECT count(*) FROM subscriptions`).Scan(&rows).Error)
		require.Equal(t, 1, rows)
		require.Equal(t, 1, f.state(t).Grants)
	}
}

func renewal(eventID string, start, end time.Time) []byte {
	b, _ := json.Marshal(map[string]any{"event_id": eventID, "event_type": "transaction.completed", "occurred_at": start,
		"data": map[string]any{"id": "txn_" + eventID, "origin": "subscription_recurring", "subscription_id": "sub_1",
			"customer_id": "ctm_1", "billing_period": map[string]any{"starts_at": start, "ends_at": end},
			"items": []any{map[string]any{"price": map[string]any{"id": "pri_pro_monthly"}}}}})
	return b
}

// A renewal's transaction.completed for the period subscription.created already granted grants nothing,
// in either order; the next period grants once however often it is delivered.
func TestRenewalAndCreatedNeverGrantOnePeriodTwice(t *testing.T) {
	t.Parallel()
	for _, createdFirst := range []bool{true, false} {
		f := setup(t)
		created, samePeriod := f.created(t0, "evt_c").payload(), renewal("evt_r1", p1Start, p1End)
		if createdFirst {
			f.mustDeliver(t, created)
			f.mustDeliver(t, samePeriod)
		} else {
			// Without the subscription row the renewal resolves its user by custom_data; here it has none, so
			// it fails and Paddle retries it after subscription.created.
			_, err := f.deliver(t, samePeriod)
			require.ErrorIs(t, err, webhook.ErrHandlerFailed)
			f.mustDeliver(t, created)
			f.mustDeliver(t, samePeriod)
		}
		require.Equal(t, 1, f.state(t).Grants, "createdFirst=%v", createdFirst)
		next := renewal("evt_r2", p1End, p1End.AddDate(0, 1, 0))
		for range 10 {
			f.mustDeliver(t, next)
		}
		require.Equal(t, 2, f.state(t).Grants)
		require.Equal(t, 1000, f.state(t).Balance, "pro's rollover is none: the first month's 1000 ended with it")
	}
}

func TestUnknownPriceFailsThenHeals(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	f := newFixture(t, d, "tiers:\n  - name: free\n    signup_credits: 25\n  - name: pro\n    paddle_price_ids: [pri_other]\n    monthly_credits: 1000\n")
	body := f.created(t0, "evt_c").payload()
	_, err := f.deliver(t, body)
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	require.ErrorContains(t, err, "unknown paddle price id")
	require.Equal(t, state{}, f.state(t))

	fixed := newFixture(t, d, "") // the operator adds the price to the tiers file and restarts
	_, err = fixed.deliver(t, body)
	require.NoError(t, err)
	require.Equal(t, state{Status: "active", Tier: "pro", UserTier: "pro", Grants: 1, Balance: 1000}, fixed.state(t))
}

func TestTamperedCheckoutSignatureIsRejected(t *testing.T) {
	t.Parallel()
	f := setup(t)
	c := f.created(t0, "evt_c")
	c.customData["clerk_user_id"] = "user_attacker"
	res, err := f.deliver(t, c.payload())
	// A forgery never becomes valid: archived failed with the reason and answered as handled, so Paddle
	// stops retrying it.
	require.NoError(t, err)
	require.Equal(t, webhook.ReasonUnprocessable, res.Reason)
	var reason string
	require.NoError(t, f.db.Raw(`SELECT error_message FROM webhook_events WHERE event_id = 'evt_c'`).Scan(&reason).Error)
	require.Contains(t, reason, "invalid checkout signature")
	var users, failedAudits int
	require.NoError(t, f.db.Raw(`SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM audit_logs WHERE action = 'webhook.failed')`).Row().Scan(&users, &failedAudits))
	require.Zero(t, users, "no user is created from a forged signature")
	require.Equal(t, 1, failedAudits, "the rejection is audited")

	// No signature and no known customer: unresolvable, also a failure.
	c = f.created(t0, "evt_c2")
	c.customData = map[string]any{"clerk_user_id": "user_1"}
	_, err = f.deliver(t, c.payload())
	require.ErrorIs(t, err, webhook.ErrHandlerFailed)
	require.ErrorContains(t, err, "cannot resolve the user")
}

func TestSignedUserIsCreatedAndCustomerFallbackWorks(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	var email string
	require.NoError(t, f.db.Raw(`SELECT email FROM users WHERE clerk_user_id = 'user_1'`).Scan(&email).Error)
	require.Equal(t, "ada@example.com", email, "the Clerk webhook is still retrying: the user comes from the signed data")

	// A second subscription of the user's bound Paddle customer without custom_data resolves through the
	// binding (made by our own API call at checkout; see TestCustomerFallbackOnlyThroughTheBinding).
	require.NoError(t, f.db.Exec(`UPDATE users SET paddle_customer_id = 'ctm_1' WHERE clerk_user_id = 'user_1'`).Error)
	other := sub{eventID: "evt_other", eventType: "subscription.updated", status: "paused", occurred: t0, start: p1Start, end: p1End}
	body := []byte(string(other.payload()))
	body = []byte(replaceOnce(string(body), `"id":"sub_1"`, `"id":"sub_2"`))
	f.mustDeliver(t, body)
	var owner string
	require.NoError(t, f.db.Raw(`SELECT u.clerk_user_id FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE s.paddle_subscription_id = 'sub_2'`).Scan(&owner).Error)
	require.Equal(t, "user_1", owner)
}

func replaceOnce(s, old, repl string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + repl + s[i+len(old):]
		}
	}
	return s
}

func adjustment(eventID, txn, status, typ string) []byte {
	b, _ := json.Marshal(map[string]any{"event_id": eventID, "event_type": "adjustment.updated", "occurred_at": t0.Add(2 * time.Hour),
		"data": map[string]any{"id": "adj_1", "action": "refund", "status": status, "type": typ, "transaction_id": txn,
			"subscription_id": "sub_1", "customer_id": "ctm_1"}})
	return b
}

func TestFullRefundOfCurrentPeriodRevokesAccess(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.mustDeliver(t, f.created(t0, "evt_c").payload())
	f.mustDeliver(t, adjustment("evt_a1", "txn_1", "pending_approval", "full"))
	require.Equal(t, "pro", f.state(t).UserTier, "pending refunds change nothing")
	f.mustDeliver(t, adjustment("evt_a2", "txn_1", "approved", "partial"))
	require.Equal(t, "pro", f.state(t).UserTier, "partial refunds keep access")
	f.mustDeliver(t, adjustment("evt_a3", "txn_other", "approved", "full"))
	require.Equal(t, "pro", f.state(t).UserTier, "a refund of an older period keeps access")
	f.mustDeliver(t, adjustment("evt_a4", "txn_1", "approved", "full"))
	require.Equal(t, "free", f.state(t).UserTier)

	// A later snapshot of the same period does not restore access...
	f.mustDeliver(t, sub{eventID: "evt_u", eventType: "subscription.updated", status: "active", occurred: t0.Add(3 * time.Hour), start: p1Start, end: p1End}.payload())
	require.Equal(t, "free", f.state(t).UserTier)
	// ...a paid renewal does.
	f.mustDeliver(t, renewal("evt_r2", p1End, p1End.AddDate(0, 1, 0)))
	require.Equal(t, "pro", f.state(t).UserTier)
	var audits int
	require.NoError(t, f.db.Raw(`SELECT count(*) FROM audit_logs WHERE action = 'adjustment.updated'`).Scan(&audits).Error)
	require.Equal(t, 4, audits)
}
