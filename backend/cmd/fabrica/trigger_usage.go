package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"

	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

// cmdTriggerUsage is `fabrica trigger usage FEATURE --user ID [--quantity N] [--key K] [--distinct]
// [--times N] [--concurrency N] [--url URL]`: usage events posted with the first WORKER_API_KEYS key,
// one line per request with the event's status; the same key for every copy unless --distinct.
func cmdTriggerUsage(ctx context.Context, env *environment, args []string) error {
	if len(args) < 1 || args[0] == "" || args[0][0] == '-' {
		return errors.New("trigger usage: want `trigger usage FEATURE --user ID [--quantity N] [--key K] [--distinct] [--times N] [--concurrency N]`")
	}
	spec := trigger.UsageSpec{Feature: args[0]}
	fs := flag.NewFlagSet("trigger usage", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	url := fs.String("url", "", "server base URL (default http://localhost:$PORT)")
	fs.StringVar(&spec.User, "user", "", "the user's id (users.id, a uuid)")
	fs.Int64Var(&spec.Quantity, "quantity", 1, "units per event")
	fs.StringVar(&spec.Key, "key", "", "idempotency key (default: a new one per call, shared by the copies)")
	fs.BoolVar(&spec.Distinct, "distinct", false, "give each send its own key (KEY-1, KEY-2, ...) instead of copies of one event")
	times := fs.Int("times", 1, "send this many times")
	concurrency := fs.Int("concurrency", 1, "this many at once")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	cfg, err := devToolConfig(env, "trigger usage", "it reports usage with a worker key, so anywhere else it would charge real users")
	if err != nil {
		return err
	}
	if len(cfg.WorkerAPIKeys) == 0 {
		return errors.New("trigger usage: WORKER_API_KEYS is empty (usage events are a worker's to send)")
	}
	answers, err := trigger.SendUsage(ctx, &http.Client{}, serverURL(*url, cfg), cfg.WorkerAPIKeys[0], spec, *times, *concurrency)
	if err != nil {
		return err
	}
	failed := 0
	for _, a := range answers {
		if !a.OK() {
			failed++
		}
		if _, err := fmt.Fprintln(env.stdout, a); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("trigger usage: %d of %d requests were not answered 2xx", failed, max(*times, 1))
	}
	return nil
}
