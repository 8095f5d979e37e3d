package trigger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/google/uuid"
)

// UsageSpec is `fabrica trigger usage FEATURE`: usage events for one user, sent with a worker key to
// POST /api/v1/usage, one event a request.
type UsageSpec struct {
	Feature  string
	User     string // the users.id uuid
	Quantity int64
	// Key is the events' idempotency key (default: a new one per call, the same for every copy); with
	// Distinct each send gets its own (Key-1, Key-2, ...), to drive a counter up.
	Key      string
	Distinct bool
}

// UsageAnswer is one request's outcome: the HTTP answer and the event's status.
type UsageAnswer struct {
	Answer
	Result string
}

func (a UsageAnswer) String() string {
	if a.Err != nil || a.Result == "" {
		return a.Answer.String()
	}
	return fmt.Sprintf("%d %s", a.Status, a.Result)
}

// SendUsage posts the spec's event times times, concurrency at once behind one start barrier, with
// workerKey, and returns the answers in completion order.
func SendUsage(ctx context.Context, client *http.Client, baseURL, workerKey string, s UsageSpec, times, concurrency int) ([]UsageAnswer, error) {
	if _, err := uuid.Parse(s.User); err != nil {
		return nil, errors.New("trigger usage: --user must be the user's id (a uuid: GET /api/v1/account/me, or the console)")
	}
	if s.Key == "" {
		s.Key = "trigger-" + uuid.NewString()
	}
	times, concurrency = max(times, 1), max(min(concurrency, times), 1)
	url := strings.TrimRight(baseURL, "/") + "/api/v1/usage"
	work := make(chan int, times)
	for i := range times {
		work <- i
	}
	close(work)
	answers := make(chan UsageAnswer, times)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range concurrency {
		wg.Go(func() {
			<-start
			for i := range work {
				key := s.Key
				if s.Distinct {
					key = fmt.Sprintf("%s-%d", s.Key, i+1)
				}
				body, _ := json.Marshal(map[string]any{"events": []map[string]any{{"user_id": s.User, "feature": s.Feature,
					"quantity": s.Quantity, "idempotency_key": key}}})
				d := Delivery{Body: body, Header: http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer " + workerKey}}}
				a := UsageAnswer{Answer: post(ctx, client, url, d)}
				var out struct {
					Results []struct {
						Status string `json:"status"`
						Used   int64  `json:"used"`
					} `json:"results"`
				}
				if a.OK() && json.Unmarshal([]byte(a.Body), &out) == nil && len(out.Results) == 1 {
					a.Result = fmt.Sprintf("%s %s (used %d)", key, out.Results[0].Status, out.Results[0].Used)
				}
				answers <- a
			}
		})
	}
	close(start)
	wg.Wait()
	close(answers)
	out := make([]UsageAnswer, 0, times)
	for a := range answers {
		out = append(out, a)
	}
	return out, nil
}
