// Command loadgen sends signed Clerk user.created deliveries to POST /webhooks/clerk of a running fabrica
// server and reports deliveries/s and p50/p99 latency: the client side of `make bench` (scripts/bench.sh,
// docs/benchmarks.md).
//
//	loadgen -mode new -senders 8 -duration 8s -warmup 1s    every delivery is a new event and a new user
//	loadgen -mode dup -senders 8 -duration 8s               one event, delivered once, then replayed
//	loadgen -mode bare -senders 8 -duration 8s              a new event per delivery of a type no handler takes
//	loadgen -mode ready -wait-ready 60s                     only wait for GET /health/ready to answer 200
//	loadgen -mode usage|usage-batch|usage-hot|entitlements  the usage API (usage.go)
//	loadgen -mode spend|spend-hot|credits                   the credit ledger's API (credits.go)
//
// It talks only to a loopback address and stops by itself after -warmup plus -duration, or after -max
// deliveries, whichever comes first. It prints one JSON line on stdout and a human line on stderr, and
// exits 1 if any delivery was answered with anything but 200.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
)

// Modes of a run.
const (
	modeNew   = "new"
	modeDup   = "dup"
	modeBare  = "bare"
	modeReady = "ready"
)

// options are the command-line flags.
type options struct {
	url       string
	secret    string
	senders   int
	duration  time.Duration
	warmup    time.Duration
	max       int64
	mode      string
	waitReady time.Duration
	timeout   time.Duration
	// The usage modes' (usage.go).
	workerKey, token, feature string
	users, batch, hotUser     int
	// The credit modes' pair (credits.go).
	pairToken string
	pairUser  int
}

// errUsage means the flag package already printed the problem.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	client := newClient(opts.senders, opts.timeout)
	if opts.waitReady > 0 {
		if err := waitReady(ctx, client, opts.url, opts.waitReady); err != nil {
			return err
		}
	}
	if opts.mode == modeReady {
		return nil
	}
	rep, err := newGenerator(client, opts).run(ctx)
	if err != nil {
		return err
	}
	if err := rep.write(stdout, stderr); err != nil {
		return err
	}
	if rep.Errors > 0 {
		return fmt.Errorf("%d deliveries failed, first: %s", rep.Errors, rep.FirstError)
	}
	return nil
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8080", "base URL of the server (loopback only)")
	fs.StringVar(&o.secret, "secret", config.DevClerkWebhookSecret, "Clerk webhook secret (whsec_...)")
	fs.IntVar(&o.senders, "senders", 1, "concurrent senders, each with one request in flight")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measured time, after the warmup")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured sending before the measured time")
	fs.Int64Var(&o.max, "max", 200_000, "hard bound on deliveries sent in all, warmup included")
	fs.StringVar(&o.mode, "mode", modeNew, "new (a new event per delivery), dup (one event replayed), bare (new events no handler takes) or ready")
	fs.DurationVar(&o.waitReady, "wait-ready", 0, "first wait up to this long for GET /health/ready to answer 200")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "bound of one request")
	fs.StringVar(&o.workerKey, "worker-key", "", "worker key of the usage and spend modes (one of the server's WORKER_API_KEYS)")
	fs.StringVar(&o.token, "token", "", "session token of -mode entitlements and -mode credits")
	fs.StringVar(&o.feature, "feature", "api_calls", "feature of the usage modes")
	fs.IntVar(&o.users, "users", 10000, "usage modes and spend: events and spends go to bench users 1..users")
	fs.IntVar(&o.batch, "batch", 100, "usage-batch: events per request (1-1000)")
	fs.IntVar(&o.hotUser, "hot-user", 1, "usage-hot and spend-hot: the one bench user")
	fs.IntVar(&o.pairUser, "pair-user", 0, "spend-hot: alternate with this bench user, reported apart (pair_p50_ms)")
	fs.StringVar(&o.pairToken, "pair-token", "", "credits: alternate with this session token, reported apart (pair_p50_ms)")
	if err := fs.Parse(args); err != nil {
		return o, errUsage
	}
	var problem string
	switch {
	case fs.NArg() > 0:
		problem = "unexpected argument " + fs.Arg(0)
	case o.mode != modeNew && o.mode != modeDup && o.mode != modeBare && o.mode != modeReady && !isUsageMode(o.mode) && !isCreditsMode(o.mode):
		problem = "-mode must be new, dup, bare, ready, usage, usage-batch, usage-hot, entitlements, spend, spend-hot or credits"
	case o.users < 1 || o.batch < 1 || o.batch > 1000:
		problem = "-users must be positive, -batch between 1 and 1000"
	case o.senders < 1 || o.senders > 1024:
		problem = "-senders must be between 1 and 1024"
	case o.duration <= 0 || o.warmup < 0 || o.max < 1 || o.timeout <= 0:
		problem = "-duration, -max and -timeout must be positive, -warmup not negative"
	default:
		if err := checkLoopback(o.url); err != nil {
			problem = err.Error()
		}
	}
	if problem != "" {
		fmt.Fprintln(stderr, "loadgen:", problem)
		fs.Usage()
		return o, errUsage
	}
	return o, nil
}

// checkLoopback refuses any target but this machine: a load generator pointed at a shared or production
// host by a typo would be an incident, not a benchmark.
func checkLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("-url %q is not an http(s) URL", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-url host %q is not a loopback address", host)
	}
	return nil
}
