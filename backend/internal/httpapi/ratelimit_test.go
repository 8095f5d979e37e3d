package httpapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLimiterBudgetsAndTierChanges(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	l := newLimiter(time.Minute, nil)
	l.now = func() time.Time { return now }
	take := func(key string, budget, n int) (allowed int) {
		for range n {
			if ok, _ := l.allow(key, budget); ok {
				allowed++
			}
		}
		return allowed
	}
	require.Equal(t, 4, take("a", 4, 10), "a burst of the budget")
	ok, wait := l.allow("a", 4)
	require.False(t, ok)
	require.Equal(t, 15*time.Second, wait, "4 a minute: one token every 15 s")
	require.Equal(t, 6, take("b", 6, 10), "another key, another bucket")

	require.Equal(t, 10, take("a", 10, 20), "an upgrade gives the new budget at once")
	now = now.Add(30 * time.Second) // 5 tokens at 10 a minute
	require.Equal(t, 2, take("a", 2, 10), "a downgrade caps what is left at the smaller burst")

	now = now.Add(2 * time.Minute)
	l.allow("c", 1)
	require.NotContains(t, l.buckets, "a", "idle buckets are swept")
	require.Contains(t, l.buckets, "c")
}

// The feedback limit is 10 an hour. A caller who sends 10, pauses a few minutes (while other users' requests
// run the sweep) and sends 10 again must not find a fresh bucket: over an hour it gets its burst plus what
// the hour refills, 20, never 10 per pause.
func TestIdleBucketIsNotSweptBeforeItsWindow(t *testing.T) {
	t.Parallel()
	start := time.Unix(1_700_000_000, 0)
	now := start
	l := newLimiter(time.Hour, nil)
	l.now = func() time.Time { return now }
	allowed := 0
	for now.Sub(start) < time.Hour {
		for range 10 {
			if ok, _ := l.allow("attacker", 10); ok {
				allowed++
			}
		}
		now = now.Add(4 * time.Minute)
		l.allow("someone-else", 10) // another user's request runs the sweep
	}
	require.LessOrEqual(t, allowed, 20, "10 at once plus 10 refilled over the hour")

	// A bucket idle for its whole window has refilled anyway: sweeping it then changes nothing.
	now = now.Add(time.Hour)
	l.allow("someone-else", 10)
	require.NotContains(t, l.buckets, "attacker", "swept once a window has passed")
	ok, _ := l.allow("attacker", 10)
	require.True(t, ok)
}
