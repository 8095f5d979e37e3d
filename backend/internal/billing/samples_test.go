package billing_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Helpers for the Paddle-sample-shaped payloads in testdata/ (hand-written to the shape of Paddle's own
// samples: several items with an add-on first, seats, a yearly cycle, a one-time item, a discount).

// Price ids of the samples and the tiers file they are read against.
const (
	priProMonth     = "pri_01hpromonthly0000000000000"
	priProYear      = "pri_01hproyearly00000000000000"
	priTeamMonth    = "pri_01hteammonthly000000000000"
	priTeamYear     = "pri_01hteamyearly0000000000000"
	priStorageYear  = "pri_01hstorageyearly0000000000"
	priStorageMonth = "pri_01hstoragemonthly000000000"
	priSetup        = "pri_01hsetupfee000000000000000"
	sampleSub       = "sub_01hv8x29kz0t586xy6zn1a62ny"
)

// sampleTiers: pro grants 1000 a month; team 500 a month per seat.
const sampleTiers = `tiers:
  - name: free
    signup_credits: 25
  - name: pro
    paddle_price_ids: [` + priProMonth + `, ` + priProYear + `]
    monthly_credits: 1000
  - name: team
    paddle_price_ids: [` + priTeamMonth + `, ` + priTeamYear + `]
    monthly_credits: 500
    credits_per_seat: true
`

// event is one decoded sample, edited through dotted paths ("data.items.1.quantity").
type event map[string]any

func loadEvent(t *testing.T, name string) event {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var e event
	require.NoError(t, json.Unmarshal(raw, &e))
	return e
}

// clone deep-copies e through JSON.
func (e event) clone() event {
	b, _ := json.Marshal(e)
	var c event
	_ = json.Unmarshal(b, &c)
	return c
}

// walk returns the container holding the last element of path and that element's key.
func (e event) walk(path string) (any, string) {
	parts := strings.Split(path, ".")
	var cur any = map[string]any(e)
	for _, p := range parts[:len(parts)-1] {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[p]
		case []any:
			i, _ := strconv.Atoi(p)
			cur = c[i]
		}
	}
	return cur, parts[len(parts)-1]
}

// set writes v at path and returns e for chaining; v may be a time.Time (written RFC 3339).
func (e event) set(path string, v any) event {
	if tm, ok := v.(time.Time); ok {
		v = tm.UTC().Format(time.RFC3339Nano)
	}
	if ev, ok := v.(event); ok {
		v = map[string]any(ev)
	}
	switch c, k := e.walk(path); c := c.(type) {
	case map[string]any:
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	case []any:
		i, _ := strconv.Atoi(k)
		c[i] = v
	}
	return e
}

func (e event) get(path string) any {
	switch c, k := e.walk(path); c := c.(type) {
	case map[string]any:
		return c[k]
	case []any:
		i, _ := strconv.Atoi(k)
		return c[i]
	}
	return nil
}

// as makes a copy of e with another id, type and occurred_at (a later snapshot of the same entity).
func (e event) as(eventID, eventType string, occurred time.Time) event {
	c := e.clone().set("event_id", eventID).set("event_type", eventType).set("occurred_at", occurred)
	if eventType != "subscription.created" && strings.HasPrefix(eventType, "subscription.") {
		c.set("data.transaction_id", nil) // only subscription.created carries it
	}
	return c
}

// period sets the subscription's current billing period.
func (e event) period(start, end time.Time) event {
	return e.set("data.current_billing_period", map[string]any{"starts_at": start.UTC().Format(time.RFC3339Nano),
		"ends_at": end.UTC().Format(time.RFC3339Nano)})
}

func (e event) body() []byte {
	b, _ := json.Marshal(e)
	return b
}

// signed puts a checkout signature issued at issued into custom_data.
func (f *fixture) signed(e event, issued time.Time) event {
	return e.set("data.custom_data.checkout_sig", f.signer.Sign("user_1", "ada@example.com", issued))
}

// deliverInOrder delivers each event ten times, in order; every delivery must succeed.
func (f *fixture) deliverInOrder(t *testing.T, events []event) {
	t.Helper()
	for _, e := range events {
		for range 10 {
			f.mustDeliver(t, e.body())
		}
	}
}

// deliverShuffled delivers ten copies of every event in a random order, then retries what failed (an
// event that arrived before its subscription could be resolved) the way Paddle does, until all succeed.
func (f *fixture) deliverShuffled(t *testing.T, events []event, seed uint64) {
	t.Helper()
	var queue [][]byte
	for _, e := range events {
		for range 10 {
			queue = append(queue, e.body())
		}
	}
	rand.New(rand.NewPCG(seed, seed)).Shuffle(len(queue), func(i, j int) { queue[i], queue[j] = queue[j], queue[i] })
	for round := 0; len(queue) > 0; round++ {
		require.Less(t, round, len(events)+1, "deliveries still failing after Paddle-like retries (seed %d)", seed)
		var failed [][]byte
		for _, body := range queue {
			if _, err := f.deliver(t, body); err != nil {
				failed = append(failed, body)
			}
		}
		queue = failed
	}
}

// sampleState is what the samples' tests assert about sub_01hv8x29kz0t586xy6zn1a62ny and user_1.
type sampleState struct {
	Status, Tier, UserTier string
	Quantity, Balance      int
	Items                  []string
}

func (f *fixture) sampleState(t *testing.T) sampleState {
	t.Helper()
	var s sampleState
	require.NoError(t, f.db.Raw(`SELECT s.status, s.tier, u.current_tier, s.quantity,
		(SELECT coalesce(sum(delta), 0) FROM credit_transactions c WHERE c.user_id = u.id)
		FROM subscriptions s JOIN users u ON u.id = s.user_id WHERE s.paddle_subscription_id = ?`, sampleSub).
		Row().Scan(&s.Status, &s.Tier, &s.UserTier, &s.Quantity, &s.Balance))
	var items []struct {
		PriceID          string
		Quantity         int
		UnitAmount       *int64
		Currency         *string
		BillingInterval  *string
		BillingFrequency *int
		Recurring        bool
		Tiered           bool
	}
	require.NoError(t, f.db.Raw(`SELECT i.price_id, i.quantity, i.unit_amount, i.currency, i.billing_interval,
		i.billing_frequency, i.recurring, i.tiered FROM subscription_items i JOIN subscriptions s ON s.id = i.subscription_id
		WHERE s.paddle_subscription_id = ? ORDER BY i.position`, sampleSub).Scan(&items).Error)
	for _, it := range items {
		line := fmt.Sprintf("%s x%d", it.PriceID, it.Quantity)
		if it.UnitAmount != nil {
			line += fmt.Sprintf(" %d %s", *it.UnitAmount, *it.Currency)
		}
		if it.BillingInterval != nil {
			line += fmt.Sprintf(" every %d %s", *it.BillingFrequency, *it.BillingInterval)
		}
		if !it.Recurring {
			line += " one-time"
		}
		if it.Tiered {
			line += " [plan]"
		}
		s.Items = append(s.Items, line)
	}
	return s
}

// grantsOf lists the ledger's grants for the sample subscription as "job_id=delta", oldest key first.
func (f *fixture) grantsOf(t *testing.T) []string {
	t.Helper()
	var out []string
	require.NoError(t, f.db.Raw(`SELECT job_id || '=' || delta FROM credit_transactions
		WHERE kind = 'grant' AND job_id LIKE 'grant:' || ? || ':%' ORDER BY job_id`, sampleSub).Scan(&out).Error)
	return out
}
