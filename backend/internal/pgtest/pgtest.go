// Package pgtest gives tests real Postgres databases: one throwaway cluster per test binary (initdb +
// pg_ctl in a short temp dir, unix socket only, fsync off), a template database migrated once, and a fresh
// CREATE DATABASE ... TEMPLATE clone per test. TEST_DATABASE_URL points it at an existing server instead.
// PgBouncer puts a transaction-pooling PgBouncer in front of a test's database. Import it from _test.go
// files only.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for the admin connection
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// DB is one test's private database.
type DB struct {
	Gorm *gorm.DB
	// URL connects to this database; hand it to code under test that opens its own pool.
	URL  string
	Name string
}

// SQL returns the underlying *sql.DB.
func (d *DB) SQL(tb testing.TB) *sql.DB {
	sqlDB, err := d.Gorm.DB()
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return sqlDB
}

var (
	once     sync.Once
	server   *instance
	setupErr error
	counter  atomic.Int64
	// Serialised because Postgres refuses to copy a template that another session is copying from.
	createMu sync.Mutex
)

const templateName = "fabrica_template"

// Main runs the test binary and stops the cluster afterwards if a test started one. Use it as
// `func TestMain(m *testing.M) { pgtest.Main(m) }`.
func Main(m *testing.M) {
	code := m.Run()
	if server != nil {
		server.stop()
	}
	os.Exit(code)
}

// New creates a database for this test, cloned from the migrated template, and drops it at cleanup.
func New(tb testing.TB) *DB {
	tb.Helper()
	once.Do(func() { server, setupErr = start() })
	if setupErr != nil {
		tb.Fatalf("pgtest: %v", setupErr)
	}
	name := fmt.Sprintf("t_%d_%d", os.Getpid(), counter.Add(1))
	createMu.Lock()
	_, err := server.admin.Exec(fmt.Sprintf(`CREATE DATABASE %s TEMPLATE %s`, name, server.template))
	createMu.Unlock()
	if err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	u := server.urlFor(name)
	gdb, err := db.Open(context.Background(), db.Config{URL: u, MaxConns: 40}, quietLogger())
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() {
		_ = db.Close(gdb)
		_, _ = server.admin.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, name))
	})
	return &DB{Gorm: gdb, URL: u, Name: name}
}

// Drop removes a test's database while code under test still points at it: how tests make "the database
// is down" real.
func Drop(tb testing.TB, d *DB) {
	tb.Helper()
	if _, err := server.admin.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, d.Name)); err != nil {
		tb.Fatalf("pgtest: drop: %v", err)
	}
}

// instance is a reachable server plus the template this binary created on it.
type instance struct {
	admin    *sql.DB
	baseURL  *url.URL
	template string
	cluster  *cluster // nil when TEST_DATABASE_URL points at an existing server
}

func start() (*instance, error) {
	inst := &instance{template: templateName}
	raw := os.Getenv("TEST_DATABASE_URL")
	if raw == "" {
		c, err := startCluster()
		if err != nil {
			return nil, err
		}
		inst.cluster = c
		raw = c.url("postgres")
	} else {
		// Several test binaries share an external server: each gets its own template.
		inst.template = fmt.Sprintf("%s_%d", templateName, os.Getpid())
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	inst.baseURL = u
	inst.admin, err = sql.Open("pgx", raw)
	if err != nil {
		return nil, err
	}
	if err := inst.migrateTemplate(); err != nil {
		inst.stop()
		return nil, err
	}
	return inst, nil
}

func (i *instance) urlFor(name string) string {
	u := *i.baseURL
	u.Path = "/" + name
	return u.String()
}

func (i *instance) migrateTemplate() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := i.admin.ExecContext(ctx, fmt.Sprintf(`DROP DATABASE IF EXISTS %s`, i.template)); err != nil {
		return fmt.Errorf("drop old template: %w", err)
	}
	if _, err := i.admin.ExecContext(ctx, fmt.Sprintf(`CREATE DATABASE %s`, i.template)); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	gdb, err := db.Open(ctx, db.Config{URL: i.urlFor(i.template), MaxConns: 2}, quietLogger())
	if err != nil {
		return err
	}
	// The template must have no open connections when it is copied.
	defer func() { _ = db.Close(gdb) }()
	sqlDB, err := gdb.DB()
	if err != nil {
		return err
	}
	m, err := db.NewMigrator(sqlDB, quietLogger())
	if err != nil {
		return err
	}
	_, err = m.Up(ctx)
	return err
}

func (i *instance) stop() {
	if i.admin != nil {
		if i.cluster == nil {
			_, _ = i.admin.Exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %s WITH (FORCE)`, i.template))
		}
		_ = i.admin.Close()
	}
	if i.cluster != nil {
		i.cluster.stop()
	}
}

func quietLogger() *slog.Logger {
	if strings.Contains(os.Getenv("PGTEST_VERBOSE"), "1") {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
