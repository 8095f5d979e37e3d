package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/pressly/goose/v3"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// LevelInfo re-exports slog's level so main can log without importing slog for one constant.
const LevelInfo = slog.LevelInfo

// OpenMigrator connects with a small pool for the migrate command; call the returned func to close it.
func OpenMigrator(ctx context.Context, cfg config.Config, log *slog.Logger) (*db.Migrator, func(), error) {
	c := dbConfig(cfg)
	c.MaxConns = 2
	gdb, err := db.Open(ctx, c, log)
	if err != nil {
		return nil, nil, err
	}
	sqlDB, err := gdb.DB()
	if err != nil {
		return nil, nil, err
	}
	m, err := db.NewMigrator(sqlDB, log)
	if err != nil {
		_ = db.Close(gdb)
		return nil, nil, err
	}
	return m, func() { _ = db.Close(gdb) }, nil
}

// CreateMigration writes the next sequentially numbered empty SQL migration into dir.
func CreateMigration(dir, name string, w io.Writer) error {
	// goose's file creation is global state; the migrate create command is its only user.
	goose.SetSequential(true)
	if err := goose.Create(nil, dir, name, "sql"); err != nil {
		return fmt.Errorf("create migration: %w", err)
	}
	_, err := fmt.Fprintf(w, "created a new migration in %s: fill in its Up and Down sections\n", dir)
	return err
}
