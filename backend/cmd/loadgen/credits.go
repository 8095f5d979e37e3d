package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The credit modes (docs/benchmarks.md, L1-L5) drive the ledger through the API:
//
//	loadgen -mode spend -users 10000 -worker-key K       POST /api/v1/credits/spend, a random bench user each
//	loadgen -mode spend-hot -hot-user N -worker-key K    the same, every spend for bench user N
//	loadgen -mode credits -token T                       GET /api/v1/billing/credits with a session
//
// A spend costs 1 credit under a new job id, so every one is a new deduct: anything but 201 with
// "idempotent":false is an error (a bench user whose credits ran out included).
//
// -pair-user M (spend-hot) and -pair-token T2 (credits) make a paired run: each sender alternates between
// the two users, and the report gives the pair's latencies apart (pair_p50_ms, pair_p99_ms) from the
// first's (p50_ms, p99_ms, deliveries, per_sec). Two users compared request by request share every
// slow second of a busy machine, which two runs one after the other do not.
const (
	modeSpend    = "spend"
	modeSpendHot = "spend-hot"
	modeCredits  = "credits"
)

func isCreditsMode(m string) bool { return m == modeSpend || m == modeSpendHot || m == modeCredits }

// paired reports whether every other request goes to the pair user (or with the pair token).
func (g *generator) paired() bool {
	return (g.opts.mode == modeSpendHot && g.opts.pairUser > 0) || (g.opts.mode == modeCredits && g.opts.pairToken != "")
}

// creditsRequest builds the next request of a credit mode, for the pair's user or token if pair.
func (g *generator) creditsRequest(ctx context.Context, pair bool) (*http.Request, error) {
	base := strings.TrimRight(g.opts.url, "/")
	if g.opts.mode == modeCredits {
		token := g.opts.token
		if pair {
			token = g.opts.pairToken
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/billing/credits", nil)
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return req, err
	}
	user := g.opts.hotUser
	switch {
	case g.opts.mode == modeSpend:
		user = 1 + rand.IntN(g.opts.users)
	case pair:
		user = g.opts.pairUser
	}
	body, err := json.Marshal(map[string]any{"user_id": BenchUserID(user), "amount": 1, "reason": "bench",
		"job_id": "lg-" + g.runID + "-" + strconv.FormatInt(g.seq.Add(1), 10)})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/credits/spend", bytes.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+g.opts.workerKey)
	}
	return req, err
}

// sendCredits sends one request of a credit mode: a spend must be answered 201 as a new deduct, a read 200.
func (g *generator) sendCredits(ctx context.Context, pair bool) (time.Duration, error) {
	req, err := g.creditsRequest(ctx, pair)
	if err != nil {
		return 0, err
	}
	resp, body, took, err := g.roundTrip(req)
	want := http.StatusCreated
	if g.opts.mode == modeCredits {
		want = http.StatusOK
	}
	switch {
	case err != nil:
		return 0, err
	case resp.StatusCode != want:
		return 0, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(body[:min(len(body), 512)]))
	case want == http.StatusCreated && !bytes.Contains(body, []byte(`"idempotent":false`)):
		return 0, fmt.Errorf("want a new deduct, got %s", bytes.TrimSpace(body[:min(len(body), 512)]))
	}
	return took, nil
}
