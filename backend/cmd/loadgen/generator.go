package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// delivery is one Clerk message: its svix-id and the exact body that gets signed.
type delivery struct {
	id   string
	body []byte
}

// newDelivery builds the event of type typ for the unique key u: message msg_<u>, user user_<u>, email
// <u>@bench.test. Bare mode sends session.created, which Clerk sends and no handler takes: claim and
// archive row only, with a body of the same shape and size.
func newDelivery(typ, u string, at time.Time) delivery {
	ms := strconv.FormatInt(at.UnixMilli(), 10)
	body := `{"type":"` + typ + `","object":"event","timestamp":` + ms +
		`,"data":{"id":"user_` + u + `","object":"user","primary_email_address_id":"idn_1",` +
		`"email_addresses":[{"id":"idn_1","email_address":"` + u + `@bench.test","verification":{"status":"verified"}}],"updated_at":` + ms + `}}`
	return delivery{id: "msg_" + u, body: []byte(body)}
}

// generator runs the senders of one load run.
type generator struct {
	client   *http.Client
	endpoint string
	opts     options
	// runID keeps the events of separate runs against one database apart.
	runID string
	seq   atomic.Int64
	// budget counts down from -max: the hard bound on deliveries sent, warmup and seed included.
	budget atomic.Int64
	// seed is the one event every sender replays in dup mode; nil in new mode.
	seed *delivery
	// sent counts every delivery sent, warmup and seed included, for CPU-per-delivery accounting.
	sent atomic.Int64
	// recorded and refused count the usage modes' events (usage.go).
	recorded, refused atomic.Int64

	errMu    sync.Mutex
	errors   int64
	firstErr string
}

func newGenerator(client *http.Client, opts options) *generator {
	g := &generator{
		client:   client,
		endpoint: strings.TrimRight(opts.url, "/") + "/webhooks/" + webhook.ProviderClerk,
		opts:     opts,
		runID:    strconv.FormatInt(time.Now().UnixNano(), 36),
	}
	g.budget.Store(opts.max)
	return g
}

// run sends for -warmup plus -duration (or until -max) with -senders concurrent senders, then reports
// on the deliveries that started within the measured window.
func (g *generator) run(ctx context.Context) (report, error) {
	if g.opts.mode == modeDup {
		// The first delivery claims the event; every later one must be answered as a duplicate.
		d := g.next()
		g.budget.Add(-1)
		if _, err := g.send(ctx, d, false); err != nil {
			return report{}, fmt.Errorf("seed delivery: %w", err)
		}
		g.seed = &d
	}
	start := time.Now()
	measureFrom := start.Add(g.opts.warmup)
	stopAt := measureFrom.Add(g.opts.duration)
	lat := make([][]time.Duration, g.opts.senders)
	pairLat := make([][]time.Duration, g.opts.senders)
	var wg sync.WaitGroup
	for i := range g.opts.senders {
		wg.Go(func() { lat[i], pairLat[i] = g.sender(ctx, measureFrom, stopAt) })
	}
	wg.Wait()
	elapsed := time.Since(measureFrom)
	rep := newReport(g.opts, lat, elapsed, g.errors, g.firstErr)
	rep.Sent, rep.Recorded, rep.Refused = g.sent.Load(), g.recorded.Load(), g.refused.Load()
	if g.paired() {
		pair := newReport(g.opts, pairLat, elapsed, 0, "")
		rep.PairDeliveries, rep.PairP50MS, rep.PairP99MS = pair.Deliveries, pair.P50MS, pair.P99MS
	}
	return rep, nil
}

// sender keeps one request in flight until stopAt or the budget runs out, and returns the latencies of
// the deliveries it started at or after measureFrom: in a paired run, every other request is the pair's
// (creditsPaired), and its latencies are returned apart.
func (g *generator) sender(ctx context.Context, measureFrom, stopAt time.Time) (lat, pairLat []time.Duration) {
	lat = make([]time.Duration, 0, 1024)
	for n := 0; ctx.Err() == nil && time.Now().Before(stopAt) && g.budget.Add(-1) >= 0; n++ {
		pair := g.paired() && n%2 == 1
		began := time.Now()
		var took time.Duration
		var err error
		switch {
		case isUsageMode(g.opts.mode):
			took, err = g.sendUsage(ctx)
		case isCreditsMode(g.opts.mode):
			took, err = g.sendCredits(ctx, pair)
		default:
			took, err = g.send(ctx, g.next(), g.seed != nil)
		}
		switch {
		case err != nil:
			if ctx.Err() == nil { // an interrupted run is not a failed delivery
				g.recordError(err)
			}
		case began.Before(measureFrom):
		case pair:
			pairLat = append(pairLat, took)
		default:
			lat = append(lat, took)
		}
	}
	return lat, pairLat
}

// next is the delivery to send: the seed in dup mode, else a new event.
func (g *generator) next() delivery {
	if g.seed != nil {
		return *g.seed
	}
	typ := "user.created"
	if g.opts.mode == modeBare {
		typ = "session.created"
	}
	return newDelivery(typ, g.runID+"_"+strconv.FormatInt(g.seq.Add(1), 10), time.Now())
}

// send signs d now (a replay is re-signed, as Svix does) and posts it. Anything but a 200 with the expected
// idempotent flag is an error.
func (g *generator) send(ctx context.Context, d delivery, wantDup bool) (time.Duration, error) {
	h, err := webhook.SignSvix(g.opts.secret, d.id, time.Now(), d.body)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.endpoint, bytes.NewReader(d.body))
	if err != nil {
		return 0, err
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	resp, body, took, err := g.roundTrip(req)
	switch {
	case err != nil:
		return 0, err
	case resp.StatusCode != http.StatusOK:
		return 0, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(body))
	case bytes.Contains(body, []byte(`"idempotent":true`)) != wantDup:
		return 0, fmt.Errorf("want idempotent=%t, got %s", wantDup, bytes.TrimSpace(body))
	case g.opts.mode == modeBare && !bytes.Contains(body, []byte(`"ignored":true`)):
		return 0, fmt.Errorf("want ignored, got %s", bytes.TrimSpace(body))
	}
	return took, nil
}

func (g *generator) recordError(err error) {
	g.errMu.Lock()
	defer g.errMu.Unlock()
	if g.errors == 0 {
		g.firstErr = err.Error()
	}
	g.errors++
}

// roundTrip sends req, counts it as sent, and reads the answer to the end (so the connection goes back to
// the pool): the response, its body (up to 4 MiB) and how long it all took.
func (g *generator) roundTrip(req *http.Request) (*http.Response, []byte, time.Duration, error) {
	g.sent.Add(1)
	began := time.Now()
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, nil, 0, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	_ = resp.Body.Close()
	return resp, body, time.Since(began), err
}
