package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Bouncer is a PgBouncer in transaction pooling mode in front of one test's database.
type Bouncer struct {
	// URL connects to the test's database through PgBouncer; code under test needs
	// DB_SIMPLE_PROTOCOL=true on it.
	URL string
	// Admin connects to PgBouncer's console (SHOW POOLS, SHOW STATS): simple protocol only.
	Admin string
	// PoolSize is the most server connections PgBouncer opens to the database.
	PoolSize int
}

// PgBouncer starts a PgBouncer in front of d's server with scripts/pgbouncer.sh, the script the dev
// topology and the benchmark use, so the tests run the same ini. It stops at cleanup. poolSize bounds
// its server connections: smaller than the clients' pools, so transactions share them. The pgbouncer
// binary must be installed (scripts/ensure-pgbouncer.sh, which `make test` runs).
func PgBouncer(tb testing.TB, d *DB, poolSize int) *Bouncer {
	tb.Helper()
	cfg, err := pgconn.ParseConfig(d.URL)
	if err != nil {
		tb.Fatalf("pgtest: pgbouncer: %v", err)
	}
	script, err := repoScript("pgbouncer.sh")
	if err != nil {
		tb.Fatalf("pgtest: pgbouncer: %v", err)
	}
	// Under /tmp, not t.TempDir(): as root PgBouncer runs as postgres, which must reach the directory.
	dir, err := os.MkdirTemp("/tmp", "fpgb")
	if err != nil {
		tb.Fatalf("pgtest: pgbouncer: %v", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		tb.Fatalf("pgtest: pgbouncer: %v", err)
	}
	port, err := freePort()
	if err != nil {
		tb.Fatalf("pgtest: pgbouncer: %v", err)
	}
	env := append(os.Environ(), "PGBOUNCER_DIR="+dir, "PGBOUNCER_PORT="+strconv.Itoa(port),
		"PGBOUNCER_POOL_SIZE="+strconv.Itoa(poolSize))
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, script, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("%s %s: %w\n%s", script, args[0], err, stderr.String())
		}
		return strings.TrimSpace(stdout.String()), nil
	}
	url, err := run("start", cfg.Host, strconv.Itoa(int(cfg.Port)), cfg.Database)
	tb.Cleanup(func() {
		if _, err := run("stop"); err != nil {
			tb.Errorf("pgtest: pgbouncer: %v", err)
		}
		_ = os.RemoveAll(dir)
	})
	if err != nil {
		tb.Fatalf("pgtest: pgbouncer: %v", err)
	}
	admin := strings.Replace(url, "/"+cfg.Database+"?", "/pgbouncer?", 1)
	return &Bouncer{URL: url, Admin: admin, PoolSize: poolSize}
}

// freePort asks the kernel for a free loopback port; the script moves on to the next one if another
// process takes it first.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// repoScript finds scripts/name from the test's working directory (its package's) up to the module root.
func repoScript(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "scripts", name), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
