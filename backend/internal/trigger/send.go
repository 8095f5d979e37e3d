package trigger

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
)

func newSigner(secret string) *billing.CheckoutSigner { return billing.NewCheckoutSigner(secret) }

// Answer is the server's answer to one delivery.
type Answer struct {
	Status int
	Body   string
	Err    error
}

// OK reports a 2xx.
func (a Answer) OK() bool { return a.Err == nil && a.Status >= 200 && a.Status < 300 }

// Unanswered is the error of a request the server never answered (nil when it answered, whatever it said).
func (a Answer) Unanswered() error { return a.Err }

func (a Answer) String() string {
	if a.Err != nil {
		return "error " + a.Err.Error()
	}
	return fmt.Sprintf("%d %s", a.Status, strings.TrimSpace(a.Body))
}

// Send posts d to baseURL/webhooks/<provider> times times, concurrency at once (all behind one start
// barrier, so they really race), and returns the answers in completion order.
func Send(ctx context.Context, client *http.Client, baseURL, provider string, d Delivery, times, concurrency int) []Answer {
	times, concurrency = max(times, 1), max(min(concurrency, times), 1)
	url := strings.TrimRight(baseURL, "/") + "/webhooks/" + provider
	answers := make(chan Answer, times)
	work := make(chan struct{}, times)
	for range times {
		work <- struct{}{}
	}
	close(work)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range work {
				answers <- post(ctx, client, url, d)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(answers)
	out := make([]Answer, 0, times)
	for a := range answers {
		out = append(out, a)
	}
	return out
}

func post(ctx context.Context, client *http.Client, url string, d Delivery) Answer {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(d.Body))
	if err != nil {
		return Answer{Err: err}
	}
	for k, v := range d.Header {
		req.Header[k] = v
	}
	res, err := client.Do(req)
	if err != nil {
		return Answer{Err: err}
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	return Answer{Status: res.StatusCode, Body: string(body), Err: err}
}
