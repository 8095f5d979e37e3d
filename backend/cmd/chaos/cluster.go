package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is a private Postgres server on 127.0.0.1, started the way scripts/bench.sh starts one: initdb
// and pg_ctl as the postgres user when we are root, in a directory under /tmp that postgres can reach.
type cluster struct {
	bindir string
	data   string
	port   int
	opts   string // the server options, for every start
	// owner is "postgres" when we are root (initdb refuses root), else "".
	owner string
}

const dbName = "fabrica_chaos"

// startCluster initialises and starts a cluster in dir/pg and creates the suite's database.
func startCluster(ctx context.Context, bindir, dir string) (*cluster, error) {
	if bindir == "" {
		var err error
		if bindir, err = findBindir(); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c := &cluster{bindir: bindir, data: filepath.Join(dir, "pg"), port: port}
	if err := os.Mkdir(c.data, 0o700); err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 {
		c.owner = "postgres"
		if err := chownTo(c.data, c.owner); err != nil {
			return nil, err
		}
	}
	if out, err := c.tool(ctx, "initdb", "-D", c.data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
		"--locale=C", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	// Durability stays at the defaults: a fast restart is a clean shutdown, and the suite measures the app's
	// recovery, not Postgres's. Three servers with a web and a River pool each need about 80 connections.
	c.opts = fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -c unix_socket_directories='' -c max_connections=200", port)
	if err := c.start(ctx); err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, c.url("postgres"))
	if err != nil {
		return c, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+dbName); err != nil {
		return c, fmt.Errorf("create database: %w", err)
	}
	return c, nil
}

func (c *cluster) logPath() string { return filepath.Join(c.data, "server.log") }

func (c *cluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

func (c *cluster) start(ctx context.Context) error {
	if out, err := c.tool(ctx, "pg_ctl", "-D", c.data, "-w", "-t", "60", "-l", c.logPath(), "-o", c.opts, "start"); err != nil {
		log, _ := os.ReadFile(c.logPath())
		return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	return nil
}

// restart is the fault: pg_ctl restart -m fast disconnects every session, checkpoints and starts again on
// the same port. With down > 0 it stops, stays down that long (a failover, a host reboot) and starts.
func (c *cluster) restart(ctx context.Context, down time.Duration) error {
	if down == 0 {
		if out, err := c.tool(ctx, "pg_ctl", "-D", c.data, "-w", "-t", "60", "-m", "fast", "-l", c.logPath(), "-o", c.opts, "restart"); err != nil {
			return fmt.Errorf("pg_ctl restart: %w\n%s", err, out)
		}
		return nil
	}
	if out, err := c.tool(ctx, "pg_ctl", "-D", c.data, "-w", "-t", "60", "-m", "fast", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	sleep(ctx, down)
	return c.start(context.WithoutCancel(ctx))
}

// stop ends the cluster at once: it is thrown away, so no shutdown checkpoint is needed. It runs during
// cleanup, when the run's context may already be cancelled.
func (c *cluster) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = c.tool(ctx, "pg_ctl", "-D", c.data, "-m", "immediate", "stop")
}

func (c *cluster) tool(ctx context.Context, name string, args ...string) ([]byte, error) {
	bin := filepath.Join(c.bindir, name)
	var cmd *exec.Cmd
	if c.owner != "" {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", c.owner, "--", bin}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, bin, args...)
	}
	return cmd.CombinedOutput()
}

// findBindir picks the newest /usr/lib/postgresql/*/bin (Debian keeps the server binaries off PATH), else
// initdb on PATH. `make chaos` passes PG_BINDIR from scripts/ensure-postgres.sh, which installs them.
func findBindir() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	version := func(p string) int { v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p)))); return v }
	sort.Slice(matches, func(i, j int) bool { return version(matches[i]) > version(matches[j]) })
	if len(matches) > 0 {
		return filepath.Dir(matches[0]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no PostgreSQL server binaries: run scripts/ensure-postgres.sh or pass -pg-bindir")
}

func chownTo(dir, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("look up user %s: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

// freePort asks the kernel for a free port on 127.0.0.1. Another process could take it before we bind it;
// on a test machine that is rare, and the start that fails says so.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
