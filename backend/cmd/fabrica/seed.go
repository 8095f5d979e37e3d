package main

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/seed"
)

// cmdSeed is `fabrica seed [--url URL]`: demo data in a development server's database, through signed
// webhooks and API calls with dev sessions and the worker key. Running it again changes nothing.
func cmdSeed(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	url := fs.String("url", "", "server base URL (default http://localhost:$PORT)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := devToolConfig(env, "seed", "it writes demo users through dev sessions")
	if err != nil {
		return err
	}
	switch {
	case len(cfg.AdminEmails) == 0:
		return errors.New("seed: ADMIN_EMAILS is empty: seed reads the webhook archive through the admin API")
	case len(cfg.WorkerAPIKeys) == 0:
		return errors.New("seed: WORKER_API_KEYS is empty: a worker key reports the demo jobs' outcomes")
	}
	events, err := newBuilder(cfg)
	if err != nil {
		return err
	}
	key, err := devauth.LoadOrCreateKey(cfg.DevSessionKeyFile)
	if err != nil {
		return err
	}
	base := serverURL(*url, cfg)
	now := devNow(ctx, base)
	events.Now = now
	session := func(clerkID, email string) (string, error) {
		return devauth.Token(key, devauth.Claims{UserID: clerkID, Email: email, TTL: 10 * time.Minute}, now())
	}
	admin, err := session(devauth.DefaultAdminUserID, cfg.AdminEmails[0])
	if err != nil {
		return err
	}
	return serverHint(base, seed.Run(ctx, seed.Config{URL: base, Client: &http.Client{}, Events: events, Session: session, Admin: admin,
		WorkerKey: cfg.WorkerAPIKeys[0], Out: env.stdout, Now: now}))
}
