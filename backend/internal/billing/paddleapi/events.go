package paddleapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/PaddleHQ/paddle-go-sdk/v4/pkg/paddleerr"
)

// EventsPerPage is the page size of ListEvents: Paddle's maximum.
const EventsPerPage = 200

// Event is one entry of Paddle's event log: its id and its JSON exactly as Paddle sent it,
// {"event_id","event_type","occurred_at","data":{...}} — a webhook notification's body without
// notification_id, so the webhook handlers read it unchanged.
type Event struct {
	ID   string
	Body []byte
}

// EventPage is one page of the event log, oldest first.
type EventPage struct {
	Events  []Event
	HasMore bool
}

// ListEvents reads the events after the event id `after` ("" for the oldest Paddle keeps), ascending by id,
// of the given types (all when empty). It is a plain GET, not the SDK's ListEvents: the SDK decodes each
// event into typed structs whose re-encoding drops fields, and the handlers must see what a webhook carries.
func (c *Client) ListEvents(ctx context.Context, after string, types []string) (EventPage, error) {
	const op = "list events"
	q := url.Values{"order_by": {"id[ASC]"}, "per_page": {strconv.Itoa(EventsPerPage)}}
	if after != "" {
		q.Set("after", after)
	}
	if len(types) > 0 {
		q.Set("event_type", strings.Join(types, ","))
	}
	ctx, a := withAttempts(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/events?"+q.Encode(), nil)
	if err != nil {
		return EventPage{}, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Accept", "application/json")
	res, err := c.retry.Do(req)
	if err != nil {
		return EventPage{}, c.translate(ctx, op, a, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return EventPage{}, c.translate(ctx, op, a, err)
	}
	var page struct {
		Data []json.RawMessage `json:"data"`
		Meta struct {
			Pagination struct {
				HasMore bool `json:"has_more"`
			} `json:"pagination"`
		} `json:"meta"`
		Error *paddleerr.Error `json:"error"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return EventPage{}, fmt.Errorf("%s: unreadable paddle response (status %d): %w", op, res.StatusCode, err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		cause := error(fmt.Errorf("status %d", res.StatusCode))
		if page.Error != nil {
			cause = page.Error
		}
		return EventPage{}, c.translate(ctx, op, a, cause)
	}
	out := EventPage{HasMore: page.Meta.Pagination.HasMore, Events: make([]Event, 0, len(page.Data))}
	for _, e := range page.Data {
		var id struct {
			EventID string `json:"event_id"`
		}
		if err := json.Unmarshal(e, &id); err != nil || id.EventID == "" {
			return EventPage{}, fmt.Errorf("%s: an event without event_id", op)
		}
		out.Events = append(out.Events, Event{ID: id.EventID, Body: e})
	}
	return out, nil
}
