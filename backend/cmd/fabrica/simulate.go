package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/simulate"
)

// cmdSimulate is `fabrica simulate FILE|NAME|all... [--chaos] [--seed N] [--url URL]`: scenarios of a
// customer's billing lifecycle played against a running development server in simulated time
// (docs/simulate.md). It stops at the first failure, naming the scenario, the step, expected and actual.
func cmdSimulate(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	chaos := fs.Bool("chaos", false, "deliver every webhook several times, concurrently, reordered and late")
	seed := fs.Uint64("seed", 1, "the chaos schedule's seed (the same seed, the same schedule)")
	url := fs.String("url", "", "server base URL (default http://localhost:$PORT)")
	dir := fs.String("dir", "scenarios", "where scenario names are looked up (NAME is DIR/NAME.yaml)")
	run := fs.String("run", "", "label of this run's customers (default orderly, or chaos<seed>): another label on the same database")
	out := fs.String("out", "", "write each scenario's outcome to DIR/<name>.txt")
	against := fs.String("against", "", "compare each scenario's outcome with DIR/<name>.txt (an orderly run's --out)")
	list := fs.Bool("list", false, "list the scenarios and the rules they cover, run nothing")
	var names []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		names, rest = append(names, fs.Arg(0)), fs.Args()[1:]
	}
	if len(names) == 0 {
		return errors.New("simulate: want `simulate FILE|NAME|all [--chaos] [--seed N] [--url URL]`")
	}
	scenarios, err := simulate.Find(*dir, names)
	if err != nil {
		return err
	}
	if *list {
		for _, sc := range scenarios {
			if _, err := fmt.Fprintf(env.stdout, "%-28s %s\n%-28s rules: %s\n", sc.Name, sc.Description, "",
				strings.Join(sc.Rules, "; ")); err != nil {
				return err
			}
		}
		return nil
	}
	cfg, err := devToolConfig(env, "simulate", "it signs webhooks with the configured secrets and moves the development clock")
	if err != nil {
		return err
	}
	switch {
	case len(cfg.AdminEmails) == 0:
		return errors.New("simulate: ADMIN_EMAILS is empty: moving the clock and reading the outcome are an operator's")
	case len(cfg.WorkerAPIKeys) == 0:
		return errors.New("simulate: WORKER_API_KEYS is empty: a worker reports how each spend's job ended")
	}
	tiers, err := billing.LoadTiers(cfg.TiersFile)
	if err != nil {
		return err
	}
	events, err := newBuilder(cfg)
	if err != nil {
		return err
	}
	key, err := devauth.LoadOrCreateKey(cfg.DevSessionKeyFile)
	if err != nil {
		return err
	}
	start := time.Now()
	for _, sc := range scenarios {
		err := simulate.Run(ctx, simulate.Config{URL: serverURL(*url, cfg), Client: &http.Client{Timeout: 5 * time.Minute},
			Events: events, Tiers: tiers, Key: key, AdminEmail: cfg.AdminEmails[0], WorkerKey: cfg.WorkerAPIKeys[0], Chaos: *chaos, Seed: *seed,
			Run: runLabel(*run, *chaos, *seed), OutDir: *out, Against: *against, Out: env.stdout}, sc)
		if err != nil {
			return serverHint(serverURL(*url, cfg), err)
		}
	}
	mode := "orderly"
	if *chaos {
		mode = fmt.Sprintf("chaos, seed %d", *seed)
	}
	_, err = fmt.Fprintf(env.stdout, "simulate: %d scenario(s) passed (%s) in %s\n", len(scenarios), mode,
		time.Since(start).Round(time.Second))
	return err
}

// runLabel is the label of a run's customers: orderly or chaos<seed>, with --run appended.
func runLabel(run string, chaos bool, seed uint64) string {
	label := "orderly"
	if chaos {
		label = fmt.Sprintf("chaos%d", seed)
	}
	if run != "" {
		label += "-" + run
	}
	return label
}
