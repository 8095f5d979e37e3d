// Package app is the one composition root: it turns a config into a database pool, services, the HTTP
// server and (later) the job workers, and owns their start and graceful stop.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"

	"github.com/labstack/echo/v4"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/db"
	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
)

// App is a fully wired service.
type App struct {
	cfg      config.Config
	log      *slog.Logger
	db       *gorm.DB
	migrator *db.Migrator
	echo     *echo.Echo
}

// LoadConfig reads the configuration from getenv (and .env in development).
func LoadConfig(getenv func(string) string) (config.Config, error) {
	return config.Load(getenv, ".env")
}

// NewLogger builds the process logger from the config: JSON in production, text in development.
func NewLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// New wires every component. It connects to the database but starts nothing; Serve does.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	gdb, err := db.Open(ctx, dbConfig(cfg), log)
	if err != nil {
		return nil, err
	}
	sqlDB, err := gdb.DB()
	if err != nil {
		return nil, err
	}
	migrator, err := db.NewMigrator(sqlDB, log)
	if err != nil {
		_ = db.Close(gdb)
		return nil, err
	}
	a := &App{cfg: cfg, log: log, db: gdb, migrator: migrator}
	a.echo = httpapi.New(httpapi.Config{
		Env:          cfg.Env,
		CORSOrigins:  cfg.CORSOrigins,
		MaxBodyBytes: cfg.HTTPMaxBodyBytes,
		HSTS:         cfg.Env == config.EnvProduction,
	}, httpapi.Deps{
		Log:    log,
		Checks: a.readinessChecks(),
	})
	return a, nil
}

func dbConfig(cfg config.Config) db.Config {
	return db.Config{URL: cfg.DatabaseURL, MaxConns: cfg.DBMaxConns, SimpleProtocol: cfg.DBSimpleProtocol}
}

// Echo exposes the router, for tests that need an extra route (a deliberately slow one, say).
func (a *App) Echo() *echo.Echo { return a.echo }

// Close releases the database pool.
func (a *App) Close() error { return db.Close(a.db) }

// Serve answers HTTP on ln until ctx is cancelled (SIGTERM in main), then stops accepting connections and
// lets in-flight requests finish within SHUTDOWN_TIMEOUT. A clean drain returns nil.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           a.echo,
		ReadHeaderTimeout: a.cfg.HTTPReadTimeout,
		ReadTimeout:       a.cfg.HTTPReadTimeout,
		WriteTimeout:      a.cfg.HTTPWriteTimeout,
		IdleTimeout:       a.cfg.HTTPIdleTimeout,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
		// Requests keep running after SIGTERM: cancelling their context would roll back a webhook that
		// was about to commit, and Shutdown already bounds how long we wait.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	a.log.Info("serving", "addr", ln.Addr().String(), "app_env", a.cfg.Env)

	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down", "timeout", a.cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	a.log.Info("stopped")
	return nil
}
