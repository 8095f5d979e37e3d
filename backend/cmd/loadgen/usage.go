package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The usage modes (docs/benchmarks.md, U1-U4) drive the usage API with a worker key:
//
//	loadgen -mode usage -users 10000 -worker-key K          one event a request, a random user each
//	loadgen -mode usage-batch -batch 100 -users 10000 ...   -batch events a request, random users
//	loadgen -mode usage-hot -hot-user 1 ...                 one event a request, all for one user
//	loadgen -mode entitlements -token T                     GET /api/v1/entitlements with a session
//
// Users are BenchUserID(1..-users), which the bench script creates with the same ids. Every event has a
// new key, so every one is recorded (or, for a block counter at its limit, refused).
const (
	modeUsage        = "usage"
	modeUsageBatch   = "usage-batch"
	modeUsageHot     = "usage-hot"
	modeEntitlements = "entitlements"
)

func isUsageMode(m string) bool {
	return m == modeUsage || m == modeUsageBatch || m == modeUsageHot || m == modeEntitlements
}

// BenchUserID is the id of bench user n: md5("bench-user-<n>") as a uuid, as the bench script's SQL makes
// it (md5('bench-user-' || n)::uuid).
func BenchUserID(n int) uuid.UUID {
	return uuid.UUID(md5.Sum([]byte("bench-user-" + strconv.Itoa(n))))
}

// usageRequest builds the next request of a usage mode.
func (g *generator) usageRequest(ctx context.Context) (*http.Request, int, error) {
	base := strings.TrimRight(g.opts.url, "/")
	if g.opts.mode == modeEntitlements {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/entitlements", nil)
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+g.opts.token)
		}
		return req, 0, err
	}
	n := 1
	if g.opts.mode == modeUsageBatch {
		n = g.opts.batch
	}
	type event struct {
		UserID   uuid.UUID `json:"user_id"`
		Feature  string    `json:"feature"`
		Quantity int       `json:"quantity"`
		Key      string    `json:"idempotency_key"`
	}
	events := make([]event, n)
	seq := strconv.FormatInt(g.seq.Add(1), 10)
	// Event i's user is random within the i-th of n strata of the users, as the pgbench scripts pick them:
	// one batch never names a user twice.
	stride := max(g.opts.users/n, 1)
	for i := range events {
		user := g.opts.hotUser
		if g.opts.mode != modeUsageHot {
			user = 1 + i*stride + rand.IntN(stride)
		}
		events[i] = event{UserID: BenchUserID(user), Feature: g.opts.feature, Quantity: 1,
			Key: g.runID + "-" + seq + "-" + strconv.Itoa(i)}
	}
	body, err := json.Marshal(map[string]any{"events": events})
	if err != nil {
		return nil, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/usage", bytes.NewReader(body))
	if err == nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+g.opts.workerKey)
	}
	return req, n, err
}

// sendUsage sends one request of a usage mode and counts its events' outcomes: recorded, or refused at
// a block limit (usage-hot); anything else is an error.
func (g *generator) sendUsage(ctx context.Context) (time.Duration, error) {
	req, n, err := g.usageRequest(ctx)
	if err != nil {
		return 0, err
	}
	resp, body, took, err := g.roundTrip(req)
	switch {
	case err != nil:
		return 0, err
	case resp.StatusCode != http.StatusOK:
		return 0, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(body[:min(len(body), 512)]))
	case n == 0:
		return took, nil
	}
	var out struct {
		Results []struct {
			Status string `json:"status"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &out); err != nil || len(out.Results) != n {
		return 0, fmt.Errorf("want %d results, got %s", n, bytes.TrimSpace(body[:min(len(body), 512)]))
	}
	for _, r := range out.Results {
		switch {
		case r.Status == "recorded":
			g.recorded.Add(1)
		case r.Status == "limit_exceeded" && g.opts.mode == modeUsageHot:
			g.refused.Add(1)
		default:
			return 0, fmt.Errorf("an event was %s", r.Status)
		}
	}
	return took, nil
}
