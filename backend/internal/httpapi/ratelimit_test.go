package httpapi

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLimiterBudgetsAndTierChanges(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	l := newLimiter(time.Minute)
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

	now = now.Add(idleFor + 2*time.Minute)
	l.allow("c", 1)
	require.NotContains(t, l.buckets, "a", "idle buckets are swept")
	require.Contains(t, l.buckets, "c")
}
