package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
)

func TestAdvance(t *testing.T) {
	t.Parallel()
	start := time.Date(2027, 1, 15, 10, 0, 0, 0, time.UTC)
	for span, want := range map[string]time.Time{
		"31d":    start.AddDate(0, 0, 31),
		"1mo":    time.Date(2027, 2, 15, 10, 0, 0, 0, time.UTC),
		"1y2mo":  time.Date(2028, 3, 15, 10, 0, 0, 0, time.UTC),
		"2w":     start.AddDate(0, 0, 14),
		"36h":    start.Add(36 * time.Hour),
		"1d12h":  start.Add(36 * time.Hour),
		" 90m ":  start.Add(90 * time.Minute),
		"13mo1s": time.Date(2028, 2, 15, 10, 0, 1, 0, time.UTC),
	} {
		got, err := clock.Advance(start, span)
		require.NoError(t, err, span)
		require.Equal(t, want, got, span)
	}
	for _, bad := range []string{"", "d", "31", "-1d", "1.5d", "3x", "0d", "1 d"} {
		_, err := clock.Advance(start, bad)
		require.Error(t, err, bad)
	}
}
