package main

import (
	"context"
	"errors"
	"flag"
	"net/http"

	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

// cmdTriggerUsage is `fabrica trigger usage FEATURE --user ID [--quantity N] [--key K] [--distinct]
// [--times N] [--concurrency N] [--url URL]`: usage events posted with the first WORKER_API_KEYS key,
// one line per request with the event's status; the same key for every copy unless --distinct.
func cmdTriggerUsage(ctx context.Context, env *environment, args []string) error {
	var spec trigger.UsageSpec
	fs := flag.NewFlagSet("trigger usage", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	url := fs.String("url", "", "server base URL (default http://localhost:$PORT)")
	fs.StringVar(&spec.User, "user", "", "the user's id (users.id, a uuid)")
	fs.Int64Var(&spec.Quantity, "quantity", 1, "units per event")
	fs.StringVar(&spec.Key, "key", "", "idempotency key (default: a new one per call, shared by the copies)")
	fs.BoolVar(&spec.Distinct, "distinct", false, "give each send its own key (KEY-1, KEY-2, ...) instead of copies of one event")
	times := fs.Int("times", 1, "send this many times")
	concurrency := fs.Int("concurrency", 1, "this many at once")
	if len(args) < 1 || args[0] == "" || args[0][0] == '-' {
		if helpAsked(args) {
			return fs.Parse([]string{"--help"})
		}
		return errors.New("trigger usage: want `trigger usage FEATURE --user ID [--quantity N] [--key K] [--distinct] [--times N] [--concurrency N]`")
	}
	spec.Feature = args[0]
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
	base := serverURL(*url, cfg)
	answers, err := trigger.SendUsage(ctx, &http.Client{}, base, cfg.WorkerAPIKeys[0], spec, *times, *concurrency)
	if err != nil {
		return err
	}
	return printAnswers(env, "trigger usage", "requests", base, answers)
}
