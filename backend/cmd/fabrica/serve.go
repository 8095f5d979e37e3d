package main

import (
	"context"
	"net"

	"github.com/fabrica-saas/fabrica/backend/internal/app"
)

func cmdServe(ctx context.Context, env *environment, _ []string) error {
	a, addr, err := boot(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return listenHint(addr, err)
	}
	return a.Serve(ctx, ln)
}

func cmdWorker(ctx context.Context, env *environment, _ []string) error {
	a, _, err := boot(ctx, env)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	return a.RunWorkers(ctx)
}

// bootQuiet wires the app for a one-shot command: logs go to stderr, so stdout carries only the result.
func bootQuiet(ctx context.Context, env *environment) (*app.App, error) {
	cfg, err := app.LoadConfig(env.getenv)
	if err != nil {
		return nil, err
	}
	return app.New(ctx, cfg, app.NewLogger(cfg, env.stderr), app.Options{})
}

// boot loads the config, logs it once with secrets masked, and wires the app. addr is where serve listens
// (config.ListenAddr: loopback only in development unless HOST says otherwise).
func boot(ctx context.Context, env *environment) (a *app.App, addr string, err error) {
	cfg, err := app.LoadConfig(env.getenv)
	if err != nil {
		return nil, "", err
	}
	log := app.NewLogger(cfg, env.stdout)
	log.LogAttrs(ctx, app.LevelInfo, "config", cfg.Redacted()...)
	a, err = app.New(ctx, cfg, log, app.Options{})
	return a, cfg.ListenAddr(), err
}
