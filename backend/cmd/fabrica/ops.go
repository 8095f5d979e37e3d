package main

import (
	"context"
	"flag"
	"fmt"
	"time"
)

// cmdPurgeArchive deletes webhook_events rows older than --older-than (default: WEBHOOK_ARCHIVE_RETENTION).
func cmdPurgeArchive(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("purge-archive", flag.ContinueOnError)
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
