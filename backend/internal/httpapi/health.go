package httpapi

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// Check is one readiness probe. Run's error message is shown to unauthenticated callers, so checks build
// messages that are safe to show and log their detail themselves.
type Check struct {
	Name string
	Run  func(ctx context.Context) error
}

// degradedAfter is the latency above which a passing check reports "degraded" on /status.
const degradedAfter = 500 * time.Millisecond

const checkTimeout = 3 * time.Second

// checkCacheFor is how long a check's result answers /health/ready and /status. Both are public and
// unauthenticated: a burst of any size costs the database one run of each check per period, not one per
// request.
const checkCacheFor = 5 * time.Second

type healthHandler struct {
	env    string
	checks []Check
	now    func() time.Time
	// cache holds each check's last result, one entry per check (same index).
	cache []cachedCheck
}

func newHealthHandler(env string, checks []Check, now func() time.Time) *healthHandler {
	return &healthHandler{env: env, checks: checks, now: now, cache: make([]cachedCheck, len(checks))}
}

// cachedCheck is one check's last result. Its mutex is held while the check runs, so callers that arrive
// meanwhile wait for that run instead of starting their own.
type cachedCheck struct {
	mu     sync.Mutex
	result checkResult
	at     time.Time
	valid  bool
}

type checkResult struct {
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	Message   string `json:"message,omitempty"`
	LatencyMS int64  `json:"latency_ms"`
	latency   time.Duration
	at        time.Time
}

// live answers while the process runs; it does no I/O so a slow database never restarts healthy pods.
func (h *healthHandler) live(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok", "environment": h.env})
}

type readyResponse struct {
	OK        bool          `json:"ok"`
	CheckedAt time.Time     `json:"checked_at"`
	Checks    []checkResult `json:"checks"`
}

// ready is the deploy gate: 200 only when every check passes, else 503 naming the failing check.
func (h *healthHandler) ready(c echo.Context) error {
	results := h.run(c.Request().Context())
	resp := readyResponse{OK: true, CheckedAt: h.checkedAt(results), Checks: results}
	for _, r := range results {
		resp.OK = resp.OK && r.OK
	}
	status := http.StatusOK
	if !resp.OK {
		status = http.StatusServiceUnavailable
	}
	return c.JSON(status, resp)
}

type component struct {
	Name   string `json:"name"`
	Status string `json:"status"`
}

type statusResponse struct {
	CheckedAt  time.Time   `json:"checked_at"`
	Overall    string      `json:"overall"`
	Components []component `json:"components"`
}

// status is the public status page feed: always 200, one word per component, no error text.
func (h *healthHandler) status(c echo.Context) error {
	results := h.run(c.Request().Context())
	resp := statusResponse{CheckedAt: h.checkedAt(results), Overall: "operational"}
	rank := map[string]int{"operational": 0, "degraded": 1, "down": 2}
	for _, r := range results {
		st := "operational"
		switch {
		case !r.OK:
			st = "down"
		case r.latency > degradedAfter:
			st = "degraded"
		}
		if rank[st] > rank[resp.Overall] {
			resp.Overall = st
		}
		resp.Components = append(resp.Components, component{Name: r.Name, Status: st})
	}
	return c.JSON(http.StatusOK, resp)
}

// run answers every check in parallel, each from its cache or, when that is older than checkCacheFor, by
// running it under its own timeout.
func (h *healthHandler) run(ctx context.Context) []checkResult {
	results := make([]checkResult, len(h.checks))
	var wg sync.WaitGroup
	for i := range h.checks {
		wg.Go(func() { results[i] = h.cached(ctx, i) })
	}
	wg.Wait()
	return results
}

func (h *healthHandler) cached(ctx context.Context, i int) checkResult {
	c := &h.cache[i]
	c.mu.Lock()
	defer c.mu.Unlock()
	// A negative age is a clock moved back (development's `fabrica dev clock reset`): check again.
	if age := h.now().Sub(c.at); c.valid && age >= 0 && age < checkCacheFor {
		return c.result
	}
	// Detached from the request: the result answers every caller of the next few seconds, so one caller
	// going away must not cache a cancelled check for the others.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), checkTimeout)
	defer cancel()
	chk := h.checks[i]
	start := time.Now()
	err := chk.Run(cctx)
	r := checkResult{Name: chk.Name, OK: err == nil, latency: time.Since(start), at: h.now().UTC()}
	r.LatencyMS = r.latency.Milliseconds()
	if err != nil {
		r.Message = err.Error()
	}
	c.result, c.at, c.valid = r, r.at, true
	return r
}

// checkedAt is when the oldest of the results was measured (now, without checks).
func (h *healthHandler) checkedAt(results []checkResult) time.Time {
	oldest := h.now().UTC()
	for _, r := range results {
		if r.at.Before(oldest) {
			oldest = r.at
		}
	}
	return oldest
}
