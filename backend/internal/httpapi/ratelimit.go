package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/fabrica-saas/fabrica/backend/internal/models"
)

// limiter holds one token bucket per key (a user id), each sized by the budget its caller has now: a budget
// of n per window refills at n/window with a burst of n. The store is per process: with N instances behind
// a balancer a user gets up to N times the budget, the usual trade for no shared state on the hot path.
type limiter struct {
	window time.Duration
	now    func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim    *rate.Limiter
	budget int
	seen   time.Time
}

// newLimiter builds a limiter of budgets per window on the clock now. A clock moved back (development's
// `fabrica dev clock reset`) neither refills nor locks anyone out: rate.Limiter counts no time elapsed and
// goes on from the earlier time.
func newLimiter(window time.Duration, now func() time.Time) *limiter {
	return &limiter{window: window, now: now, buckets: map[string]*bucket{}}
}

// allow takes one token from key's bucket of budget, or says how long until one is there.
func (l *limiter) allow(key string, budget int) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	every := rate.Limit(float64(budget) / l.window.Seconds())
	b, ok := l.buckets[key]
	switch {
	case !ok || budget > b.budget:
		// New, or an upgrade (a rare, paid event): a full bucket of the new budget at once.
		b = &bucket{lim: rate.NewLimiter(every, budget), budget: budget}
		l.buckets[key] = b
	case budget < b.budget:
		// A downgrade keeps the tokens left, capped at the smaller burst: no free refill.
		b.lim.SetLimitAt(now, every)
		b.lim.SetBurstAt(now, budget)
		b.budget = budget
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// sweep drops idle buckets, at most once a minute, so the map does not grow with every user ever seen.
// A bucket goes only once it has been idle for a whole window: it refills at budget per window, so by then
// it is full, exactly what a new bucket would be. Dropped any sooner it would come back full early, and a
// caller pausing between bursts would get a fresh budget each time (10 an hour becoming 10 every few
// minutes).
func (l *limiter) sweep(now time.Time) {
	if d := now.Sub(l.lastSweep); d >= 0 && d < time.Minute {
		return
	}
	l.lastSweep = now
	for k, b := range l.buckets {
		if now.Sub(b.seen) >= l.window {
			delete(l.buckets, k)
		}
	}
}

// limitUsers rate-limits the authenticated user (behind requireUser) by budget(user) requests per window,
// answering 429 rate_limited with Retry-After (whole seconds until the next token). A budget of 0 or less
// is no limit.
func limitUsers(l *limiter, budget func(models.User) int) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			u := currentUser(c)
			n := budget(u)
			if n <= 0 {
				return next(c)
			}
			if ok, wait := l.allow(u.ID.String(), n); !ok {
				c.Response().Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
				return NewError(http.StatusTooManyRequests, "rate_limited", "too many requests; retry later")
			}
			return next(c)
		}
	}
}

// rateLimit is the API budget: the per-minute limit of the user's current tier (the tiers file's
// rate_limit_per_minute, through tierLimit), or perMinute (RATE_LIMIT_PER_MINUTE) for a tier without one.
// The tier is read from the user row requireUser just loaded, so an upgrade applies on the next request.
func rateLimit(perMinute int, tierLimit func(tier string) int, now func() time.Time) echo.MiddlewareFunc {
	return limitUsers(newLimiter(time.Minute, now), func(u models.User) int {
		if tierLimit != nil {
			if n := tierLimit(u.CurrentTier); n > 0 {
				return n
			}
		}
		return perMinute
	})
}
