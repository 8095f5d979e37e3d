package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/fabrica-saas/fabrica/backend/internal/app"
)

func cmdMigrate(ctx context.Context, env *environment, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("migrate: want up, down [--to VERSION], status or create NAME")
	}
	if args[0] == "create" {
		fs := flag.NewFlagSet("migrate create", flag.ContinueOnError)
		fs.SetOutput(env.stderr)
		dir := fs.String("dir", "migrations", "directory of the migration files")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 1 {
			return fmt.Errorf("migrate create: want exactly one NAME, e.g. add_invoices")
		}
		return app.CreateMigration(*dir, fs.Arg(0), env.stdout)
	}
	cfg, err := app.LoadConfig(env.getenv)
	if err != nil {
		return err
	}
	log := app.NewLogger(cfg, env.stderr)
	m, closeDB, err := app.OpenMigrator(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeDB()
	switch args[0] {
	case "up":
		n, err := m.Up(ctx)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.stdout, "applied %d migration(s)\n", n)
		return err
	case "down":
		fs := flag.NewFlagSet("migrate down", flag.ContinueOnError)
		fs.SetOutput(env.stderr)
		to := fs.Int64("to", -1, "roll back every migration above this version (0 empties the schema)")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *to < 0 {
			return m.Down(ctx)
		}
		n, err := m.DownTo(ctx, *to)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.stdout, "rolled back %d migration(s)\n", n)
		return err
	case "status":
		return m.PrintStatus(ctx, env.stdout)
	}
	return fmt.Errorf("migrate: unknown subcommand %q", args[0])
}
