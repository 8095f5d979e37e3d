package db

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/fabrica-saas/fabrica/migrations"
)

// Migrator applies the embedded goose migrations and River's own (the job queue lives in the same
// database). Schema changes only ever happen here (a PaaS release step runs `fabrica migrate up`), never
// through GORM's AutoMigrate. River's migrations stay River's: its migrator records them in river_migration,
// so a River upgrade brings its new versions with no SQL copied into this repository.
type Migrator struct {
	p     *goose.Provider
	river *rivermigrate.Migrator[*sql.Tx]
}

// NewMigrator builds a migrator on sqlDB. A lease row in goose's lock table (goose_lock) serialises
// concurrent `migrate up` runs from several instances of a deploy. Not a session advisory lock: a release
// step shares the web processes' DATABASE_URL, and behind PgBouncer's transaction pooling a session lock
// lands on whichever server connection is handed out, where the next client's statements find it already
// theirs (two release steps both "holding" it, TestMigrationsThroughPgBouncer) or its unlock misses it.
func NewMigrator(sqlDB *sql.DB, log *slog.Logger) (*Migrator, error) {
	// Retried every second for five minutes: a second release step waits out the first.
	locker, err := lock.NewPostgresTableLocker(lock.WithTableLockTimeout(time.Second, 300), lock.WithTableLogger(log))
	if err != nil {
		return nil, fmt.Errorf("migrator: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS,
		goose.WithLocker(locker),
		goose.WithSlog(log),
	)
	if err != nil {
		return nil, fmt.Errorf("migrator: %w", err)
	}
	rm, err := rivermigrate.New(riverdatabasesql.New(sqlDB), &rivermigrate.Config{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("migrator: %w", err)
	}
	return &Migrator{p: p, river: rm}, nil
}

// Up applies every pending migration: ours, then River's.
func (m *Migrator) Up(ctx context.Context) (int, error) {
	res, err := m.p.Up(ctx)
	if err != nil {
		return len(res), fmt.Errorf("migrate up: %w", err)
	}
	rres, err := m.river.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return len(res), fmt.Errorf("migrate up river: %w", err)
	}
	return len(res) + len(rres.Versions), nil
}

// Down rolls back the latest migration.
func (m *Migrator) Down(ctx context.Context) error {
	if _, err := m.p.Down(ctx); err != nil {
		return fmt.Errorf("migrate down: %w", err)
	}
	return nil
}

// DownTo rolls back every migration above version. 0 empties the schema, River's tables included.
func (m *Migrator) DownTo(ctx context.Context, version int64) (int, error) {
	n := 0
	if version == 0 {
		rres, err := m.river.Migrate(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{TargetVersion: -1})
		if err != nil {
			return 0, fmt.Errorf("migrate down river: %w", err)
		}
		n = len(rres.Versions)
	}
	res, err := m.p.DownTo(ctx, version)
	if err != nil {
		return n + len(res), fmt.Errorf("migrate down to %d: %w", version, err)
	}
	return n + len(res), nil
}

// Pending returns a description of what is not applied yet, or "" when the schema is current: the
// readiness check refuses traffic until it is empty. A schema ahead of this build is current: in a rolling
// deploy the release step has migrated for the new version while old instances still serve, and a rollback
// runs an older build on the newer schema (migrations are written expand-then-contract for exactly that).
func (m *Migrator) Pending(ctx context.Context) (string, error) {
	current, latest, err := m.p.GetVersions(ctx)
	if err != nil {
		return "", fmt.Errorf("migration versions: %w", err)
	}
	if current < latest {
		return fmt.Sprintf("schema at version %d, this build expects %d", current, latest), nil
	}
	res, err := m.river.Validate(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("river migration versions: %w", err)
	}
	if !res.OK {
		return "job queue schema is behind: " + strings.Join(res.Messages, "; "), nil
	}
	return "", nil
}

// PrintStatus writes one line per migration: applied time or "pending".
func (m *Migrator) PrintStatus(ctx context.Context, w io.Writer) error {
	st, err := m.p.Status(ctx)
	if err != nil {
		return fmt.Errorf("migrate status: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSTATE\tAPPLIED AT\tFILE")
	for _, s := range st {
		applied := "-"
		if !s.AppliedAt.IsZero() {
			applied = s.AppliedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", s.Source.Version, s.State, applied, s.Source.Path)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	existing, err := m.river.ExistingVersions(ctx)
	if err != nil {
		return fmt.Errorf("river migration status: %w", err)
	}
	_, err = fmt.Fprintf(w, "river: %d of %d job queue migrations applied\n", len(existing), len(m.river.AllVersions()))
	return err
}
