// Command fabrica is the whole service in one binary: the API server, migrations and operator commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// version is stamped at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// SIGTERM (a deploy) and SIGINT (Ctrl-C) cancel ctx; commands drain and return.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		code := 1
		var ee *exitErr
		if errors.As(err, &ee) {
			code, err = ee.code, ee.err
		}
		if err != nil && !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "fabrica:", err)
		}
		os.Exit(code)
	}
}

// errUsage means the usage text was already printed.
var errUsage = errors.New("usage")

// exitErr ends the process with its own exit code (every other error exits 1); err, if any, is printed
// first. `fabrica verify` tells violations (1) from a check that could not run (2).
type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitErr) Unwrap() error { return e.err }

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *environment, args []string) error
	// flagged: the command parses its flags before it does anything, so `--help` may run it to print
	// them (commandHelp); a command that acts on its arguments at once only prints its summary.
	flagged bool
}

// environment is what every command gets: the injected process environment and output streams.
type environment struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
}

func commands() []command {
	return []command{
		{"serve", "run the HTTP API (and the job workers unless SERVE_WORKERS=false)", cmdServe, false},
		{"worker", "run only the job workers (scale them apart from the web process)", cmdWorker, false},
		{"migrate", "up | down [--to VERSION] | status | create NAME: manage the schema", cmdMigrate, false},
		{"jobs", "list | run NAME: run a scheduled task now", cmdJobs, false},
		{"purge-archive", "[--older-than 2160h]: delete old webhook archive rows (never the dedup claims)", cmdPurgeArchive, true},
		{"replay", "WEBHOOK_EVENT_ID: re-run an archived delivery through the idempotent pipeline", cmdReplay, false},
		{"dev", "token [--user ID] [--email E] [--admin] [--ttl 1h]: a development session token (no Clerk account); " +
			"clock [set TIME | advance 31d | reset]: development's time travel", cmdDev, true},
		{"trigger", "PROVIDER EVENT [--user --email --tier --subscription --event-id --times --concurrency --url]: send a signed sample event; usage FEATURE --user ID [--quantity --key --distinct --times --concurrency --url]: usage events", cmdTrigger, true},
		{"simulate", "FILE|NAME|all [--chaos] [--seed N] [--url URL]: play billing scenarios in simulated time against a development server", cmdSimulate, true},
		{"seed", "[--url URL]: demo users, subscriptions, credit spends and one failed delivery (development only)", cmdSeed, true},
		{"sync", "paddle [--since 72h] | clerk-users: pull what the webhooks missed through the same pipeline", cmdSync, true},
		{"verify", "[AREA...] [--user ID] [--json] [--list]: read-only consistency checks; exit 1 on a violation, 2 on an error", cmdVerify, true},
		{"version", "print the build version", cmdVersion, false},
		{"help", "list the commands", nil, false},
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	env := &environment{getenv: getenv, stdout: stdout, stderr: stderr}
	// The image's ENTRYPOINT is the binary. A platform that prepends it to a command that already names the
	// binary (Dokku runs a Procfile's "fabrica serve" as "/fabrica fabrica serve"; Render's dockerCommand
	// "/fabrica worker" may be run the same way) still runs the subcommand.
	if len(args) > 0 && filepath.Base(args[0]) == "fabrica" {
		args = args[1:]
	}
	if len(args) == 0 {
		printHelp(stderr)
		return errUsage
	}
	for _, c := range commands() {
		if c.name == args[0] && c.run != nil {
			if helpAsked(args[1:]) {
				return commandHelp(ctx, env, c, args[1:])
			}
			return c.run(ctx, env, args[1:])
		}
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(stdout)
		return nil
	}
	fmt.Fprintf(stderr, "fabrica: unknown command %q\n\n", args[0])
	printHelp(stderr)
	return errUsage
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "Usage: fabrica <command> [arguments]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nConfiguration comes from the environment (and .env in development); see .env.example.")
}

func cmdVersion(_ context.Context, env *environment, _ []string) error {
	_, err := fmt.Fprintln(env.stdout, "fabrica", version)
	return err
}
