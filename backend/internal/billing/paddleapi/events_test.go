package paddleapi

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestListEventsKeepsEachEventsBytes(t *testing.T) {
	t.Parallel()
	page := `{"data":[{"event_id":"evt_01a","event_type":"subscription.created","occurred_at":"2026-11-01T10:00:00Z","data":{"id":"sub_1","x":{"unknown":true}}},
		{"event_id":"evt_01b","event_type":"transaction.completed","occurred_at":"2026-11-01T10:01:00Z","data":{"id":"txn_1"}}],
		"meta":{"request_id":"r","pagination":{"per_page":200,"next":"https://api.paddle.com/events?after=evt_01b","has_more":true,"estimated_total":9}}}`
	c, fake, _ := setup(t, Config{}, reply{status: 200, body: page})
	got, err := c.ListEvents(context.Background(), "evt_019", []string{"subscription.created", "transaction.completed"})
	require.NoError(t, err)
	require.True(t, got.HasMore)
	require.Len(t, got.Events, 2)
	require.Equal(t, "evt_01a", got.Events[0].ID)
	require.JSONEq(t, `{"event_id":"evt_01a","event_type":"subscription.created","occurred_at":"2026-11-01T10:00:00Z","data":{"id":"sub_1","x":{"unknown":true}}}`,
		string(got.Events[0].Body), "unknown fields survive: the handlers read what a webhook carries")
	req := fake.requests()[0]
	require.Equal(t, "GET /events", req.Method+" "+req.Path)
	require.Equal(t, "Bearer "+testKey, req.Auth)

	c, _, _ = setup(t, Config{MaxRetries: -1}, reply{status: 503, body: unavailable})
	_, err = c.ListEvents(context.Background(), "", nil)
	require.ErrorIs(t, err, ErrUnavailable)
}
