package main

import (
	"context"
	"fmt"
	"net"
	"strconv"

	"github.com/fabrica-saas/fabrica/backend/internal/app"
)

func cmdServe(ctx context.Context, env *environment, _ []string) error {
	cfg, err := app.LoadConfig(env.getenv)
	if err != nil {
		return err
	}
	log := app.NewLogger(cfg, env.stdout)
	log.LogAttrs(ctx, app.LevelInfo, "config", cfg.Redacted()...)
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(cfg.Port))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return a.Serve(ctx, ln)
}
