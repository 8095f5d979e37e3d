// Command ledgerverify runs the credit ledger's consistency checks (credits.Checks, in one read-only
// snapshot through the verify package) against DATABASE_URL and prints how long each took and what it
// found; it exits 1 on any difference. `make bench` (scripts/bench-ledger.sh) runs it after migrating a
// 10-million-row ledger and after the spend rounds. It is what `fabrica verify ledger` runs, for a tree
// that has no such command yet.
//
//	DATABASE_URL=postgres://... ledgerverify [-user UUID] [-show 10]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// errDifferences means a check found something; the report says what.
var errDifferences = errors.New("the ledger has differences")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ledgerverify:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ledgerverify", flag.ContinueOnError)
	user := fs.String("user", "", "check only this user's balance, buckets and movements")
	show := fs.Int("show", 10, "differences printed per check")
	if err := fs.Parse(args); err != nil {
		return err
	}
	url := getenv("DATABASE_URL")
	if url == "" {
		return errors.New("DATABASE_URL is not set")
	}
	var scope verify.Scope
	if *user != "" {
		id, err := uuid.Parse(*user)
		if err != nil {
			return fmt.Errorf("-user: %w", err)
		}
		scope.UserID = &id
	}
	gdb, err := db.Open(ctx, db.Config{URL: url, MaxConns: 1}, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	if sqlDB, err := gdb.DB(); err == nil {
		defer func() { _ = sqlDB.Close() }()
	}
	start := time.Now()
	rep, err := verify.Run(ctx, gdb, credits.Checks(), scope)
	if err != nil {
		return err
	}
	for _, r := range rep.Results {
		fmt.Fprintf(stdout, "%-40s %10s  %d differences\n", r.Check.Name, r.Took.Round(time.Millisecond), len(r.Violations))
		for i, v := range r.Violations {
			if i == *show {
				break
			}
			fmt.Fprintf(stdout, "  %s: %s\n", v.Subject, v.Detail)
		}
	}
	fmt.Fprintf(stdout, "ledger: %d checks, %d differences, %s\n", len(rep.Results), rep.Violations(),
		time.Since(start).Round(time.Millisecond))
	if rep.Violations() > 0 {
		return errDifferences
	}
	return nil
}
