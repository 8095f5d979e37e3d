package db

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/fabrica-saas/fabrica/migrations"
)

// Migrator applies the embedded goose migrations. Schema changes only ever happen here (a PaaS release
// step runs `fabrica migrate up`), never through GORM's AutoMigrate.
type Migrator struct {
	p *goose.Provider
}

// NewMigrator builds a migrator on sqlDB. A Postgres session lock serialises concurrent `migrate up` runs
// from several instances of a deploy.
func NewMigrator(sqlDB *sql.DB, log *slog.Logger) (*Migrator, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, fmt.Errorf("migrator: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS,
		goose.WithSessionLocker(locker),
		goose.WithSlog(log),
	)
	if err != nil {
		return nil, fmt.Errorf("migrator: %w", err)
	}
	return &Migrator{p: p}, nil
}

// Up applies every pending migration.
func (m *Migrator) Up(ctx context.Context) (int, error) {
	res, err := m.p.Up(ctx)
	if err != nil {
		return len(res), fmt.Errorf("migrate up: %w", err)
	}
	return len(res), nil
}

// Down rolls back the latest migration.
func (m *Migrator) Down(ctx context.Context) error {
	if _, err := m.p.Down(ctx); err != nil {
		return fmt.Errorf("migrate down: %w", err)
	}
	return nil
}

// DownTo rolls back every migration above version (0 empties the schema).
func (m *Migrator) DownTo(ctx context.Context, version int64) (int, error) {
	res, err := m.p.DownTo(ctx, version)
	if err != nil {
		return len(res), fmt.Errorf("migrate down to %d: %w", version, err)
	}
	return len(res), nil
}

// Versions returns the database's current version and the newest embedded one; the readiness check
// compares them.
func (m *Migrator) Versions(ctx context.Context) (current, latest int64, err error) {
	current, latest, err = m.p.GetVersions(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("migration versions: %w", err)
	}
	return current, latest, nil
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
	return tw.Flush()
}
