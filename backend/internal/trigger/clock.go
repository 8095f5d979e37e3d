package trigger

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ServerClock asks a development server how far its clock is moved (GET /api/v1/dev/clock, docs/simulate.md)
// and returns a clock that tells the server's time: the development tools sign webhooks and mint session
// tokens at that time, so a moved clock does not make the server refuse them as stale. A server that does
// not answer the route (not running, not development) is an error; the caller decides whether the
// machine's time will do.
func ServerClock(ctx context.Context, client *http.Client, baseURL string) (func() time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/api/v1/dev/clock", nil)
	if err != nil {
		return nil, err
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ask the server's clock: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ask the server's clock: GET /api/v1/dev/clock answered %d", res.StatusCode)
	}
	var v struct {
		OffsetSeconds float64 `json:"offset_seconds"`
	}
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		return nil, fmt.Errorf("ask the server's clock: %w", err)
	}
	offset := time.Duration(v.OffsetSeconds * float64(time.Second))
	return func() time.Time { return time.Now().Add(offset) }, nil
}
