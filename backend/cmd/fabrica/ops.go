package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/catchup"
)

// cmdPurgeArchive deletes webhook_events rows older than --older-than (default: WEBHOOK_ARCHIVE_RETENTION).
func cmdPurgeArchive(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("purge-archive", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	olderThan := fs.Duration("older-than", 0, "delete archive rows older than this, e.g. 2160h (default WEBHOOK_ARCHIVE_RETENTION)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	a, err := bootQuiet(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	n, cutoff, err := a.PurgeArchive(ctx, *olderThan)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.stdout, "deleted %d archive row(s) older than %s\n", n, cutoff)
	return err
}

// cmdReplay re-runs one archived delivery through the idempotent pipeline.
func cmdReplay(ctx context.Context, env *environment, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("replay: want exactly one webhook event id")
	}
	a, err := bootQuiet(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	res, err := a.Replay(ctx, args[0])
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.stdout, "replayed %s: %s\n", res.EventID, res.Status)
	return err
}

// cmdJobs runs a scheduled task by hand (`jobs run NAME`) or lists them (`jobs list`).
func cmdJobs(ctx context.Context, env *environment, args []string) error {
	a, err := bootQuiet(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	switch {
	case len(args) == 1 && args[0] == "list":
		_, err = fmt.Fprintln(env.stdout, a.TaskNames())
		return err
	case len(args) == 2 && args[0] == "run":
		start := time.Now()
		rep, err := a.RunTask(ctx, args[1])
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.stdout, "%s done in %s: %v\n", args[1], time.Since(start).Round(time.Millisecond), rep)
		return err
	}
	return fmt.Errorf("jobs: want `jobs list` or `jobs run NAME` (%s)", a.TaskNames())
}

// cmdSync is pull reconciliation by hand: `sync paddle --since 72h` feeds Paddle's events since then through
// the pipeline (what we have is a duplicate), `sync clerk-users` creates the Clerk users we are missing.
func cmdSync(ctx context.Context, env *environment, args []string) error {
	if len(args) == 0 || (args[0] != "paddle" && args[0] != "clerk-users") {
		return fmt.Errorf("sync: want `sync paddle [--since 72h]` or `sync clerk-users`")
	}
	fs := flag.NewFlagSet("sync "+args[0], flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	since := fs.Duration("since", catchupLookback, "with paddle: how far back to read the event log")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	a, err := bootQuiet(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	start := time.Now()
	var rep catchup.Report
	if args[0] == "paddle" {
		rep, err = a.SyncPaddle(ctx, *since)
	} else {
		rep, err = a.SyncClerkUsers(ctx)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.stdout, "sync %s done in %s: %v\n", args[0], time.Since(start).Round(time.Millisecond), rep.Map())
	return err
}

// catchupLookback is the default --since: Paddle's retry window.
const catchupLookback = catchup.FirstLookback
