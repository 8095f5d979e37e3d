package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
)

// Serve answers HTTP on ln (and, with SERVE_WORKERS, works jobs) until ctx is cancelled (SIGTERM in main).
// Then it stops accepting connections, lets in-flight requests finish within SHUTDOWN_TIMEOUT, and stops
// the workers the same way. A clean drain returns nil.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	var runner *jobs.Runner
	if a.cfg.ServeWorkers {
		var err error
		if runner, err = a.startRunner(ctx); err != nil {
			return err
		}
	}
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
	a.log.Info("serving", "addr", ln.Addr().String(), "app_env", a.cfg.Env, "workers", a.cfg.ServeWorkers)

	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
		a.log.Info("shutting down", "timeout", a.cfg.ShutdownTimeout.String())
		sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			serveErr = fmt.Errorf("shutdown: %w", err)
		} else if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
			serveErr = err
		}
	}
	if runner != nil {
		serveErr = errors.Join(serveErr, a.stopRunner(runner))
	}
	if serveErr != nil {
		return fmt.Errorf("serve: %w", serveErr)
	}
	a.log.Info("stopped")
	return nil
}

// RunWorkers works jobs until ctx is cancelled: the `fabrica worker` process, for scaling web and jobs apart.
func (a *App) RunWorkers(ctx context.Context) error {
	runner, err := a.startRunner(ctx)
	if err != nil {
		return err
	}
	a.log.Info("working jobs")
	<-ctx.Done()
	a.log.Info("stopping workers", "timeout", a.cfg.ShutdownTimeout.String())
	return a.stopRunner(runner)
}

func (a *App) startRunner(ctx context.Context) (*jobs.Runner, error) {
	runner, err := jobs.NewRunner(ctx, jobs.RunnerConfig{
		DatabaseURL:    a.cfg.DatabaseURL,
		SimpleProtocol: a.cfg.DBSimpleProtocol,
		MaxWorkers:     10,
		Observer:       a.metrics,
	}, a.log, a.workers, jobs.PeriodicJobs(a.tasks()))
	if err != nil {
		return nil, err
	}
	// The runner outlives ctx's cancellation until stopRunner drains it.
	if err := runner.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, err
	}
	return runner, nil
}

func (a *App) stopRunner(r *jobs.Runner) error {
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer cancel()
	return r.Stop(sctx)
}
