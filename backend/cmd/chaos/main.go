// Command chaos is the project's own chaos suite (`make chaos`, docs/reliability.md). It starts a private
// Postgres and three `fabrica serve` processes on 127.0.0.1, sends a bounded load of signed Clerk
// user.created deliveries round-robin across them, and meanwhile kills one server with SIGKILL, drains
// another with SIGTERM and restarts Postgres. Then it redelivers every event, waits for the email queue
// to drain, checks from the database that every event had exactly one effect, runs `fabrica verify` (every
// consistency check) on the database, prints what it did and what it found as tables, and exits 1 on any
// violation.
//
//	chaos -fabrica bin/fabrica [-events 600] [-servers 3] [-load 40s] [-smtp-delay 2s] [-pg-down 0] [-timeout 6m]
//
// Everything listens on and talks to 127.0.0.1 only; the run is bounded in count (-events, and a cap on
// attempts) and in time (-timeout); every process it started and the cluster are removed on exit, Ctrl-C
// included.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// options are the command-line flags.
type options struct {
	fabrica   string
	pgBindir  string
	events    int
	servers   int
	senders   int
	load      time.Duration
	smtpDelay time.Duration
	pgDown    time.Duration
	timeout   time.Duration
	keep      bool
}

var (
	// errUsage means the flag package already printed the problem.
	errUsage = errors.New("usage")
	// errViolations means the suite ran and at least one check failed (the table says which).
	errViolations = errors.New("violations found")
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	switch {
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	opts, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	// The hard cap: whatever hangs, the suite ends, and the deferred cleanup still runs.
	ctx, cancel := context.WithTimeout(ctx, opts.timeout)
	defer cancel()
	start := time.Now()
	r, err := setup(ctx, opts, stdout)
	if r != nil {
		defer r.cleanup()
	}
	if err != nil {
		return err
	}
	if err := r.scenario(ctx); err != nil {
		return fmt.Errorf("scenario: %w (after %s)", err, time.Since(start).Round(time.Second))
	}
	results := r.check(ctx)
	r.report(results, time.Since(start))
	if opts.keep {
		if err := r.writeAttempts(); err != nil {
			return fmt.Errorf("attempts.csv: %w", err)
		}
	}
	for _, c := range results {
		if c.verdict == verdictFail {
			return errViolations
		}
	}
	return nil
}

func parseFlags(args []string, out io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.fabrica, "fabrica", "bin/fabrica", "the fabrica binary to run (make build)")
	fs.StringVar(&o.pgBindir, "pg-bindir", os.Getenv("PG_BINDIR"), "PostgreSQL server binaries (default: the newest /usr/lib/postgresql/*/bin)")
	fs.IntVar(&o.events, "events", 600, "distinct user.created events to deliver")
	fs.IntVar(&o.servers, "servers", 3, "fabrica serve processes (A is killed, B drained, the rest stay)")
	fs.IntVar(&o.senders, "senders", 16, "concurrent senders")
	fs.DurationVar(&o.load, "load", 40*time.Second, "time over which the new events are paced")
	fs.DurationVar(&o.smtpDelay, "smtp-delay", 2*time.Second, "how long the SMTP sink waits before its greeting (keeps email jobs in flight)")
	fs.DurationVar(&o.pgDown, "pg-down", 0, "0: pg_ctl restart -m fast; else stop -m fast, stay down this long, start")
	fs.DurationVar(&o.timeout, "timeout", 6*time.Minute, "hard bound on the whole run")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory (server and Postgres logs, attempts.csv) instead of removing it")
	if err := fs.Parse(args); err != nil {
		return o, errUsage
	}
	var problem string
	switch {
	case fs.NArg() > 0:
		problem = "unexpected argument " + fs.Arg(0)
	case o.events < 2*burstSize || o.events > 5000:
		problem = fmt.Sprintf("-events must be between %d and 5000", 2*burstSize)
	case o.servers < 3 || o.servers > 5:
		problem = "-servers must be between 3 and 5"
	case o.senders < 1 || o.senders > 64:
		problem = "-senders must be between 1 and 64"
	case o.load < 20*time.Second || o.load > 2*time.Minute:
		problem = "-load must be between 20s and 2m: the faults need about 20 s of load"
	case o.smtpDelay < 0 || o.smtpDelay > 10*time.Second:
		problem = "-smtp-delay must be between 0 and 10s"
	case o.pgDown < 0 || o.pgDown > 20*time.Second:
		problem = "-pg-down must be between 0 and 20s"
	case o.timeout < time.Minute || o.timeout > 15*time.Minute:
		problem = "-timeout must be between 1m and 15m"
	}
	if problem != "" {
		fmt.Fprintln(out, "chaos:", problem)
		fs.Usage()
		return o, errUsage
	}
	return o, nil
}
