package clock_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Two processes of one development setup: a move made by one is seen by the other within Settle, and
// removing the offset brings both back to the machine's time.
func TestTheDevelopmentClockIsSharedThroughTheDatabase(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	sqlDB, err := d.Gorm.DB()
	require.NoError(t, err)
	ctx := context.Background()
	web, worker := clock.NewDev(ctx, sqlDB, quiet()), clock.NewDev(ctx, sqlDB, quiet())
	defer web.Close()
	defer worker.Close()
	require.WithinDuration(t, time.Now(), worker.Now(), time.Second)

	const month = 31 * 24 * time.Hour
	require.NoError(t, web.Set(ctx, month))
	require.WithinDuration(t, time.Now().Add(month), web.Now(), time.Second, "the mover sees it at once")
	time.Sleep(clock.Settle)
	require.Equal(t, month, worker.Offset(), "another process sees it within Settle")

	// A process started later reads it at start.
	late := clock.NewDev(ctx, sqlDB, quiet())
	defer late.Close()
	require.Equal(t, month, late.Offset())

	require.NoError(t, web.Set(ctx, 0))
	time.Sleep(clock.Settle)
	require.Zero(t, worker.Offset())
	var rows int
	require.NoError(t, sqlDB.QueryRow(`SELECT count(*) FROM dev_clock`).Scan(&rows))
	require.Zero(t, rows, "no offset, no row")
}
