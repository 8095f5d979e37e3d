package seed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// call sends one API request with a bearer token and decodes the answer into out (when not nil); an
// answer whose status is not one of want is an error quoting the server's answer.
func (s *seeder) call(ctx context.Context, method, path, bearer string, body, out any, want ...int) (int, error) {
	var payload io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		payload = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, payload)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	res, err := s.Client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("seed: %s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return res.StatusCode, fmt.Errorf("seed: %s %s: %w", method, path, err)
	}
	if !slices.Contains(want, res.StatusCode) {
		return res.StatusCode, fmt.Errorf("seed: %s %s: %d %s", method, path, res.StatusCode, bytes.TrimSpace(raw))
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return res.StatusCode, fmt.Errorf("seed: %s %s: %w", method, path, err)
		}
	}
	return res.StatusCode, nil
}

// archived reports whether the webhook archive holds a delivery of the event in that status (admin API).
func (s *seeder) archived(ctx context.Context, provider, eventID, status string) (bool, error) {
	q := url.Values{"provider": {provider}, "event_id": {eventID}, "status": {status}, "limit": {"1"}}
	var page struct {
		Items []json.RawMessage `json:"items"`
	}
	_, err := s.call(ctx, http.MethodGet, "/api/v1/admin/webhook-events?"+q.Encode(), s.Admin, nil, &page, http.StatusOK)
	return len(page.Items) > 0, err
}
