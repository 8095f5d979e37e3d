package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

func triggerBuilder(t *testing.T, a *App) *trigger.Builder {
	t.Helper()
	tiers, err := billing.LoadTiers(a.cfg.TiersFile)
	require.NoError(t, err)
	return &trigger.Builder{Tiers: tiers, Secrets: trigger.Secrets{Paddle: a.cfg.PaddleWebhookSecrets[0],
		Clerk: a.cfg.ClerkWebhookSecrets[0], Checkout: a.cfg.CheckoutSigningSecret}}
}

// Every event `fabrica trigger` builds is accepted by a real server in a lifecycle order, a repeated event
// id is answered as a duplicate, and ten at once have one effect.
func TestTriggerEveryEventTypeAgainstARealServer(t *testing.T) {
	t.Parallel()
	e := newAPIEnv(t)
	srv := httptest.NewServer(e.app.Echo())
	t.Cleanup(srv.Close)
	b := triggerBuilder(t, e.app)
	send := func(provider, event string, times, conc int, id string) []trigger.Answer {
		d, err := b.Build(trigger.Spec{Provider: provider, Event: event, User: "user_trig", EventID: id})
		require.NoError(t, err, event)
		return trigger.Send(context.Background(), srv.Client(), srv.URL, provider, d, times, conc)
	}
	order := [][2]string{{"clerk", "user.created"}, {"paddle", "subscription.created"}, {"paddle", "subscription.activated"},
		{"paddle", "subscription.updated"}, {"paddle", "subscription.past_due"}, {"paddle", "subscription.paused"},
		{"paddle", "subscription.resumed"}, {"paddle", "subscription.trialing"}, {"paddle", "transaction.completed"},
		{"paddle", "adjustment.created"}, {"paddle", "subscription.canceled"}, {"clerk", "user.updated"}, {"clerk", "user.deleted"}}
	for _, ev := range order {
		for _, a := range send(ev[0], ev[1], 1, 1, "") {
			require.True(t, a.OK(), "%s %s: %s", ev[0], ev[1], a)
			require.NotContains(t, a.Body, `"ignored":true`, "%s %s has a handler", ev[0], ev[1])
		}
	}
	require.Equal(t, int64(0), e.count(t, `SELECT count(*) FROM webhook_events WHERE processing_status <> 'processed'`))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM users WHERE clerk_user_id = 'user_trig' AND email = 'trig@fabrica.test'`))

	answers := send("paddle", "subscription.created", 10, 10, "evt_trigger_same")
	processed := 0
	for _, a := range answers {
		require.True(t, a.OK(), a.String())
		if !strings.Contains(a.Body, `"idempotent":true`) {
			processed++
		} else {
			require.JSONEq(t, `{"event_id":"evt_trigger_same","idempotent":true}`, a.Body)
		}
	}
	require.Equal(t, 1, processed, "ten at once, one effect")
	_, err := b.Build(trigger.Spec{Provider: "paddle", Event: "subscription.exploded"})
	require.ErrorIs(t, err, trigger.ErrUnknownEvent)
	require.Equal(t, http.StatusOK, e.call(t, http.MethodGet, "/health", "", "").Code)
}

// `fabrica trigger usage` against a real server: ten copies at once record once; --distinct sends ten
// events, and the block limit stops the counter at exactly its limit.
func TestTriggerUsageAgainstARealServer(t *testing.T) {
	t.Parallel()
	e := newUsageEnv(t, nil, nil)
	srv := httptest.NewServer(e.app.Echo())
	t.Cleanup(srv.Close)
	e.seedCredits(t, "user_tu", 1)
	id := e.userID(t, "user_tu")
	send := func(s trigger.UsageSpec, times int) map[string]int {
		answers, err := trigger.SendUsage(context.Background(), srv.Client(), srv.URL, workerKey, s, times, 10)
		require.NoError(t, err)
		out := map[string]int{}
		for _, a := range answers {
			require.True(t, a.OK(), a.String())
			out[strings.Fields(a.Result)[1]]++
		}
		return out
	}
	require.Equal(t, map[string]int{"recorded": 1, "duplicate": 9}, send(trigger.UsageSpec{Feature: "api_calls", User: id, Quantity: 5}, 10))
	require.Equal(t, map[string]int{"recorded": 19, "limit_exceeded": 6},
		send(trigger.UsageSpec{Feature: "api_calls", User: id, Quantity: 5, Key: "burst", Distinct: true}, 25))
	require.Equal(t, 100, e.ledgerInt(t, `SELECT used FROM usage_counters WHERE user_id = ?`, id))
	_, err := trigger.SendUsage(context.Background(), srv.Client(), srv.URL, workerKey, trigger.UsageSpec{Feature: "api_calls", User: "user_tu"}, 1, 1)
	require.ErrorContains(t, err, "--user must be the user's id")
}
