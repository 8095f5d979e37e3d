// Package db opens the GORM handle on pgx, runs the embedded goose migrations, and translates Postgres
// errors into a few sentinels the domain packages can test with errors.Is.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Config is what the db package needs from the service configuration.
type Config struct {
	URL      string
	MaxConns int
	// SimpleProtocol disables server-side prepared statements, which PgBouncer in transaction pooling
	// mode cannot route.
	SimpleProtocol bool
}

// Open connects, sizes the pool and pings once so a wrong URL fails at start, not on the first request.
func Open(ctx context.Context, cfg Config, log *slog.Logger) (*gorm.DB, error) {
	gdb, err := gorm.Open(postgres.New(postgres.Config{
		DSN:                  cfg.URL,
		PreferSimpleProtocol: cfg.SimpleProtocol,
	}), &gorm.Config{
		TranslateError: true,
		// Every table write goes through explicit transactions; GORM's implicit one per Create/Save only
		// adds round trips.
		SkipDefaultTransaction: true,
		Logger:                 newLogger(log),
		NowFunc:                func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqlDB, err := gdb.DB()
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqlDB.SetMaxOpenConns(cfg.MaxConns)
	sqlDB.SetMaxIdleConns(cfg.MaxConns)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return gdb, nil
}

// OpenProbe opens a pool of one connection on the same database, apart from Open's, for the health
// checks: whatever the public /health/ready and /status are asked, they hold at most this one connection
// and never wait for, or take, one the API needs. It connects lazily, so a process that never answers a
// health check (a worker, a one-shot command) never opens it, and it gives an idle connection back after
// a minute.
func OpenProbe(cfg Config) (*sql.DB, error) {
	pc, err := pgx.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if cfg.SimpleProtocol {
		pc.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	sqlDB := stdlib.OpenDB(*pc)
	sqlDB.SetMaxOpenConns(1)
	sqlDB.SetMaxIdleConns(1)
	sqlDB.SetConnMaxIdleTime(time.Minute)
	return sqlDB, nil
}

// Close closes the underlying pool.
func Close(gdb *gorm.DB) error {
	sqlDB, err := gdb.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// slowQuery is the duration from which a statement is logged (at warn).
const slowQuery = 500 * time.Millisecond

// newLogger logs slow queries and real errors through slog, never every statement: statements carry
// payloads and emails.
func newLogger(log *slog.Logger) logger.Interface {
	return lazyTrace{logger.NewSlogLogger(log, logger.Config{
		SlowThreshold:             slowQuery,
		LogLevel:                  logger.Warn,
		IgnoreRecordNotFoundError: true,
		ParameterizedQueries:      true,
	})}
}

// lazyTrace skips GORM's trace of a statement that will not be logged. GORM's slog logger renders the SQL
// (Dialector.Explain, a regexp pass over the statement) for every statement before deciding to drop it:
// about 9 % of the server's CPU per webhook delivery in a profile. Only an error or a slow statement is
// handed on.
type lazyTrace struct{ logger.Interface }

func (l lazyTrace) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	if (err != nil && !errors.Is(err, gorm.ErrRecordNotFound)) || time.Since(begin) > slowQuery {
		l.Interface.Trace(ctx, begin, fc, err)
	}
}

// LogMode keeps the wrapper when GORM derives a logger of another level (db.Debug()).
func (l lazyTrace) LogMode(level logger.LogLevel) logger.Interface {
	return lazyTrace{l.Interface.LogMode(level)}
}

// Sentinels for the Postgres outcomes domain code branches on.
var (
	ErrNotFound   = errors.New("not found")
	ErrDuplicate  = errors.New("duplicate key")
	ErrForeignKey = errors.New("foreign key violation")
)

// Translate maps Postgres errors to this package's sentinels, keeping the original in the chain for
// logging. It reads both GORM's translated errors and raw pgx ones: GORM translates errors of Exec and
// Create but not of Raw(...).Scan, where INSERT ... RETURNING runs.
func Translate(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return fmt.Errorf("%w: %w", ErrDuplicate, err)
		case "23503":
			return fmt.Errorf("%w: %w", ErrForeignKey, err)
		}
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gorm.ErrRecordNotFound):
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return fmt.Errorf("%w: %w", ErrDuplicate, err)
	case errors.Is(err, gorm.ErrForeignKeyViolated):
		return fmt.Errorf("%w: %w", ErrForeignKey, err)
	}
	return err
}
