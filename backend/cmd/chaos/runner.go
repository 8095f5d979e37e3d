package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
)

// runner holds everything one run started, and what it saw.
type runner struct {
	opts    options
	out     io.Writer
	dir     string
	bin     string   // the fabrica binary under test
	env     []string // the servers' environment (and `fabrica verify`'s)
	sink    *sink
	pg      *cluster
	db      *pgxpool.Pool
	fleet   *fleet
	drv     *driver
	probe   *http.Client
	leaders *leaderWatch
	events  []event

	t0       time.Time // the load's start: the table's times are relative to it
	timeline []step
	f        facts
}

// step is one row of the "what was done" table.
type step struct {
	at       time.Time
	did, saw string
}

func (r *runner) note(at time.Time, did, saw string) {
	r.timeline = append(r.timeline, step{at: at, did: did, saw: saw})
	fmt.Fprintf(r.out, "chaos: %7s  %s: %s\n", r.since(at), did, saw)
}

func (r *runner) since(t time.Time) string {
	if r.t0.IsZero() {
		return "setup"
	}
	return fmt.Sprintf("%+.1fs", t.Sub(r.t0).Seconds())
}

// shutdownTimeout is the servers' SHUTDOWN_TIMEOUT; a drain that takes longer is a failure.
const shutdownTimeout = 20 * time.Second

// setup starts the SMTP sink, the cluster, migrates once and starts the servers one after another (so each
// River client id maps to one process). On error the runner returned, if any, still needs cleanup.
func setup(ctx context.Context, opts options, out io.Writer) (*runner, error) {
	bin, err := filepath.Abs(opts.fabrica)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%s: %w (make build)", opts.fabrica, err)
	}
	// /tmp, not $TMPDIR, and 755: as root the cluster runs as postgres, which must reach its data directory.
	dir, err := os.MkdirTemp("/tmp", "fabrica-chaos.")
	if err != nil {
		return nil, err
	}
	r := &runner{opts: opts, out: out, dir: dir, probe: &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{Proxy: nil}}}
	if err := os.Chmod(dir, 0o755); err != nil {
		return r, err
	}
	if r.sink, err = startSink(opts.smtpDelay); err != nil {
		return r, err
	}
	if r.pg, err = startCluster(ctx, opts.pgBindir, dir); err != nil {
		return r, err
	}
	dbURL := r.pg.url(dbName)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "APP_ENV=development", "DATABASE_URL=" + dbURL,
		"SERVE_WORKERS=true", "EMAIL_DRIVER=smtp", "SMTP_URL=smtp://" + r.sink.addr(), "LOG_LEVEL=warn",
		"SHUTDOWN_TIMEOUT=" + shutdownTimeout.String()}
	r.bin, r.env = bin, env
	migrate := exec.CommandContext(ctx, bin, "migrate", "up")
	migrate.Dir, migrate.Env = dir, env
	if b, err := migrate.CombinedOutput(); err != nil {
		return r, fmt.Errorf("migrate up: %w\n%s", err, b)
	}
	if r.db, err = pgxpool.New(ctx, dbURL); err != nil {
		return r, err
	}
	if r.fleet, err = newFleet(bin, dir, opts.servers, env); err != nil {
		return r, err
	}
	for slot := range opts.servers {
		s, err := r.fleet.startReady(ctx, slot, r.probe, 60*time.Second)
		if err != nil {
			return r, err
		}
		r.note(s.readyAt, "start "+s.name(), "ready on 127.0.0.1:"+strconv.Itoa(s.port))
	}
	r.leaders = watchLeader(ctx, r.db)
	r.events = newEvents(strconv.FormatInt(time.Now().UnixNano(), 36), opts.events)
	r.drv = newDriver(r.fleet, config.DevClerkWebhookSecret, r.events, opts.senders)
	return r, nil
}

// cleanup stops everything setup started, in reverse, whatever state the run ended in.
func (r *runner) cleanup() {
	if r.leaders != nil {
		r.leaders.close()
	}
	if r.db != nil {
		r.db.Close()
	}
	if r.fleet != nil {
		r.fleet.stopAll(shutdownTimeout + 5*time.Second)
	}
	if r.pg != nil {
		r.pg.stop()
	}
	if r.sink != nil {
		r.sink.close()
	}
	if r.opts.keep {
		fmt.Fprintln(r.out, "chaos: kept", r.dir)
		return
	}
	_ = os.RemoveAll(r.dir)
}
