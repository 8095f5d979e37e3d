package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// event is one Clerk user.created message: its svix-id (the idempotency key) and the exact body signed.
type event struct {
	id   string
	body []byte
}

// newEvents builds n distinct events: message msg_chaos_<run>_<i>, user user_chaos_<run>_<i>, email
// chaos_<run>_<i>@chaos.test.
func newEvents(runID string, n int) []event {
	out := make([]event, n)
	ms := strconv.FormatInt(time.Now().UnixMilli(), 10)
	for i := range out {
		u := "chaos_" + runID + "_" + strconv.Itoa(i)
		body := `{"type":"user.created","object":"event","timestamp":` + ms +
			`,"data":{"id":"user_` + u + `","object":"user","primary_email_address_id":"idn_1",` +
			`"email_addresses":[{"id":"idn_1","email_address":"` + u + `@chaos.test","verification":{"status":"verified"}}],"updated_at":` + ms + `}}`
		out[i] = event{id: "msg_" + u, body: []byte(body)}
	}
	return out
}

// attempt is one POST of one event to one server, and what came back.
type attempt struct {
	event      int
	phase      string
	server     *server
	start, end time.Time
	status     int // 0: no HTTP answer (refused, reset, timed out)
	idempotent bool
	draining   bool // answered by a server after its SIGTERM
	err        string
}

// driver delivers events like a provider behind a load balancer: round-robin over the servers, and after
// a connection error or a 5xx the same event again, re-signed, to the next server, with a short backoff.
type driver struct {
	client *http.Client
	fleet  *fleet
	secret string
	events []event
	rr     atomic.Uint64
	// budget is the hard bound on attempts in the whole run.
	budget atomic.Int64

	mu       sync.Mutex
	attempts []attempt
}

func newDriver(f *fleet, secret string, events []event, senders int) *driver {
	d := &driver{fleet: f, secret: secret, events: events, client: &http.Client{
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			Proxy:               nil, // never through HTTP_PROXY: the targets are on this machine
			DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
			MaxIdleConnsPerHost: senders + 2*burstSize,
			IdleConnTimeout:     30 * time.Second,
		},
	}}
	d.budget.Store(int64(40 * len(events)))
	return d
}

// run delivers the events idx with senders concurrent senders, starting one every pace (0: as fast as the
// senders go), and returns how many were answered 200.
func (d *driver) run(ctx context.Context, phase string, idx []int, senders int, pace time.Duration) int {
	work := make(chan int)
	go func() {
		defer close(work)
		for _, i := range idx {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
			if pace > 0 && !sleep(ctx, pace) {
				return
			}
		}
	}()
	var acked atomic.Int64
	var wg sync.WaitGroup
	for range senders {
		wg.Go(func() {
			for i := range work {
				if d.deliver(ctx, i, phase, -1) {
					acked.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return int(acked.Load())
}

// burst starts every event of idx at once with its first attempt pinned to slot, so that requests are in
// flight there when a fault lands; retries go round-robin. The returned function waits for the burst.
func (d *driver) burst(ctx context.Context, phase string, idx []int, slot int) func() int {
	var acked atomic.Int64
	var wg sync.WaitGroup
	for _, i := range idx {
		wg.Go(func() {
			if d.deliver(ctx, i, phase, slot) {
				acked.Add(1)
			}
		})
	}
	return func() int { wg.Wait(); return int(acked.Load()) }
}

// deliver sends event i until a server answers 200. A 4xx is final: no retry would change it.
func (d *driver) deliver(ctx context.Context, i int, phase string, first int) bool {
	for n := 0; ; n++ {
		slot := first
		if n > 0 || first < 0 {
			slot = int(d.rr.Add(1) % uint64(d.fleet.size()))
		}
		a := d.post(ctx, i, phase, d.fleet.at(slot))
		d.mu.Lock()
		d.attempts = append(d.attempts, a)
		d.mu.Unlock()
		switch {
		case a.status == http.StatusOK:
			return true
		case a.status >= 400 && a.status < 500, ctx.Err() != nil, d.budget.Add(-1) < 0:
			return false
		}
		if !sleep(ctx, min(50*time.Millisecond<<min(n, 5), time.Second)) {
			return false
		}
	}
}

// post signs event i now (a provider re-signs every retry) and sends it to s.
func (d *driver) post(ctx context.Context, i int, phase string, s *server) attempt {
	a := attempt{event: i, phase: phase, server: s, start: time.Now()}
	ev := d.events[i]
	h, err := webhook.SignSvix(d.secret, ev.id, time.Now(), ev.body)
	if err != nil {
		a.err, a.end = err.Error(), time.Now()
		return a
	}
	url := "http://127.0.0.1:" + strconv.Itoa(s.port) + "/webhooks/" + webhook.ProviderClerk
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(ev.body))
	if err != nil {
		a.err, a.end = err.Error(), time.Now()
		return a
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.client.Do(req)
	a.end = time.Now()
	if err != nil {
		a.err = err.Error()
		return a
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	a.status = resp.StatusCode
	a.idempotent = bytes.Contains(body, []byte(`"idempotent":true`))
	a.draining = s.drainingAt(a.end)
	if a.status != http.StatusOK {
		a.err = fmt.Sprintf("%d %s", a.status, bytes.TrimSpace(body))
	}
	return a
}

// log returns a copy of every attempt so far.
func (d *driver) log() []attempt {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]attempt(nil), d.attempts...)
}

// sleep waits for d or until ctx ends; it reports whether the full time passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
