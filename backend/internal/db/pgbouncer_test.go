package db_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
)

// The hole: the migration lock was a session advisory lock. A release step shares the web processes'
// DATABASE_URL, so behind PgBouncer `migrate up` runs through transaction pooling, where a session lock
// sits on a server connection that PgBouncer then hands to the next client, to whom it is already granted:
// two release steps at once both "held" it and both applied migration 1 ("relation already exists").
// One server connection makes that hand-over certain; a larger pool makes it a matter of luck.
func TestMigrationsThroughPgBouncer(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	bouncer := pgtest.PgBouncer(t, d, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// migrator is one `fabrica migrate` process: its own small pool, through PgBouncer.
	migrator := func() *db.Migrator {
		gdb, err := db.Open(ctx, db.Config{URL: bouncer.URL, MaxConns: 2, SimpleProtocol: true}, quiet)
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close(gdb) })
		sqlDB, err := gdb.DB()
		require.NoError(t, err)
		m, err := db.NewMigrator(sqlDB, quiet)
		require.NoError(t, err)
		return m
	}
	before := schemaSnapshot(t, d)
	_, err := migrator().DownTo(ctx, 0)
	require.NoError(t, err)

	steps := []*db.Migrator{migrator(), migrator()}
	errs := make([]error, len(steps))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, m := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = m.Up(ctx)
		}()
	}
	close(start)
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	require.Equal(t, before, schemaSnapshot(t, d))

	pending, err := migrator().Pending(ctx)
	require.NoError(t, err)
	require.Empty(t, pending)
	next, stop := context.WithTimeout(ctx, 5*time.Second)
	defer stop()
	_, err = migrator().Up(next)
	require.NoError(t, err, "the lock was released: the next release step takes it at once")
}
