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

type healthHandler struct {
	env    string
	checks []Check
	now    func() time.Time
}

type checkResult struct {
	Name      string `json:"name"`
	OK        bool   `json:"ok"`
	Message   string `json:"message,omitempty"`
	LatencyMS int64  `json:"latency_ms"`
	latency   time.Duration
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
	resp := readyResponse{OK: true, CheckedAt: h.now().UTC(), Checks: results}
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
	resp := statusResponse{CheckedAt: h.now().UTC(), Overall: "operational"}
	rank := map[string]int{"operational": 0, "degraded": 1, "down": 2}
	for _, r := range h.run(c.Request().Context()) {
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

// run executes the checks in parallel, each under its own timeout.
func (h *healthHandler) run(ctx context.Context) []checkResult {
	results := make([]checkResult, len(h.checks))
	var wg sync.WaitGroup
	for i, chk := range h.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, checkTimeout)
			defer cancel()
			start := time.Now()
			err := chk.Run(cctx)
			r := checkResult{Name: chk.Name, OK: err == nil, latency: time.Since(start)}
			r.LatencyMS = r.latency.Milliseconds()
			if err != nil {
				r.Message = err.Error()
			}
			results[i] = r
		}()
	}
	wg.Wait()
	return results
}
