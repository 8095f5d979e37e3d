package simulate

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

// Config is one run of scenarios against a server.
type Config struct {
	URL    string
	Client *http.Client
	// Events signs the providers' webhooks with the server's secrets (trigger's builder); its tiers are the
	// server's tiers file.
	Events *trigger.Builder
	Tiers  *billing.Tiers
	// Key signs development session tokens (the server trusts it in development); AdminEmail is the dev
	// admin's verified address (one of ADMIN_EMAILS).
	Key        *rsa.PrivateKey
	AdminEmail string
	// WorkerKey is one of WORKER_API_KEYS: a spend's job is finished by the worker that ran it.
	WorkerKey string
	Chaos     bool
	Seed      uint64
	// Run labels this run's ids (default orderly, or chaos<seed>): another label is a fresh customer on
	// the same database.
	Run string
	// OutDir, when set, receives each scenario's outcome (OutDir/<name>.txt); Against, when set, holds an
	// earlier run's outcomes (the orderly one's) that this run's must equal.
	OutDir, Against string
	Out             io.Writer
}

// runner plays one scenario.
type runner struct {
	cfg    Config
	sc     *Scenario
	c      *client
	m      *model
	sched  *scheduler
	now    time.Time // the scenario's time
	userID string
	obs    observation
	step   int
	// noCheckout: the server answered the checkout without custom data once (no Paddle API in
	// development); the rest of the scenario signs its own.
	noCheckout bool
}

// Run plays sc and returns the first failure: a delivery the server refused, an API answer that was not
// the expected one, or an expectation that does not hold (naming the scenario, the step, expected and
// actual).
func Run(ctx context.Context, cfg Config, sc *Scenario) error {
	run := cfg.Run
	if run == "" {
		run = "orderly"
		if cfg.Chaos {
			run = fmt.Sprintf("chaos%d", cfg.Seed)
		}
	}
	g := newIDs(sc.Name, run)
	local, domain, ok := strings.Cut(sc.User, "@")
	if !ok {
		return fmt.Errorf("scenario %s: user %q is not an email", sc.Name, sc.User)
	}
	email := local + "+" + run + "@" + domain
	m := &model{b: cfg.Events, tiers: cfg.Tiers, ids: g, email: email, clerkID: g.make("user_sim_", "user"),
		subs: map[string]*sub{}, txns: map[string]*txn{}, adjs: map[string]*adjustment{}}
	m.customer = g.make("ctm_", "customer")
	g.name(email, "email")
	c := &client{base: strings.TrimRight(cfg.URL, "/"), http: cfg.Client, key: cfg.Key, adminEmail: cfg.AdminEmail}
	r := &runner{cfg: cfg, sc: sc, c: c, m: m, sched: newScheduler(cfg.Chaos, cfg.Seed, sc.Name, len(sc.Steps)), now: sc.Start}
	mode := "orderly"
	if cfg.Chaos {
		mode = fmt.Sprintf("chaos, seed %d (replay: fabrica simulate %s --chaos --seed %d)", cfg.Seed, sc.Name, cfg.Seed)
	}
	r.say("== %s (%s): %s, %s", sc.Name, mode, email, m.clerkID)
	if err := r.start(ctx); err != nil {
		return fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	for i, st := range sc.Steps {
		r.step = i
		if err := r.play(ctx, st); err != nil {
			return fmt.Errorf("scenario %s, step %d %q (line %d, %s): %w", sc.Name, i+1, st.label(), st.Line,
				r.now.Format(time.RFC3339), err)
		}
	}
	return r.finish(ctx)
}

func (r *runner) say(format string, args ...any) { fmt.Fprintf(r.cfg.Out, format+"\n", args...) }

// line prints one timeline entry: the simulated date, the event, its effect.
func (r *runner) line(at time.Time, event, eff string) {
	r.say("%s  %-58s ⇒ %s", at.UTC().Format("2006-01-02 15:04"), event, eff)
}

func (r *runner) start(ctx context.Context) error {
	r.m.b.Now = r.c.serverNow
	if err := r.c.readClock(ctx); err != nil {
		return err
	}
	var page struct {
		Items []struct{} `json:"items"`
	}
	q := url.Values{"clerk_user_id": {r.m.clerkID}}
	if _, err := r.c.asAdmin(ctx, http.MethodGet, "/api/v1/admin/users?"+q.Encode(), nil, &page); err != nil {
		return err
	}
	if len(page.Items) > 0 {
		return errors.New("this run's user exists on the server already (the scenario ran here before): pass --run " +
			"with another label, or start from a fresh database (make simulate does)")
	}
	_, err := r.moveTo(ctx, r.sc.Start)
	return err
}

// moveTo sets the server's clock to at and returns what its tasks did, for the timeline.
func (r *runner) moveTo(ctx context.Context, at time.Time) (string, error) {
	a, err := r.c.moveClock(ctx, at)
	if err != nil {
		return "", err
	}
	r.now = at
	var ran []string
	for _, t := range a.Tasks {
		var counts []string
		for _, k := range sortedKeys(t.Report) {
			if t.Report[k] != 0 {
				counts = append(counts, fmt.Sprintf("%s=%d", k, t.Report[k]))
			}
		}
		if len(counts) > 0 {
			ran = append(ran, t.Name+"("+strings.Join(counts, " ")+")")
		}
	}
	if len(ran) == 0 {
		return "", nil
	}
	return "; jobs: " + strings.Join(ran, " "), nil
}

// deliver sends a window of events as the scheduler plans it, and prints the plan under chaos.
func (r *runner) deliver(ctx context.Context, evs []event) error {
	rounds, held := r.sched.plan(r.step, evs)
	if r.sched.chaos && len(evs) > 0 {
		r.say("                  chaos: %s", describe(rounds, held))
	}
	return r.deliverRounds(ctx, rounds)
}

// deliverLate sends the copies held back for after step (-1: the end).
func (r *runner) deliverLate(ctx context.Context, step int) error {
	late := r.sched.late[step]
	delete(r.sched.late, step)
	if len(late) == 0 {
		return nil
	}
	names := make([]string, 0, len(late))
	rounds := make([][]copyOf, 0, len(late))
	for _, c := range late {
		names = append(names, c.String())
		rounds = append(rounds, []copyOf{c})
	}
	r.say("                  chaos: late: %s", strings.Join(names, ", "))
	return r.deliverRounds(ctx, rounds)
}

// settle observes, prints the entry and keeps the observation.
func (r *runner) settle(ctx context.Context, at time.Time, event string) error {
	o, err := r.observe(ctx)
	if err != nil {
		return err
	}
	r.line(at, event, effect(r.obs, o, r.m.subs))
	r.obs = o
	return nil
}

func eventNames(evs []event) string {
	names := make([]string, 0, len(evs))
	for _, e := range evs {
		names = append(names, e.typ)
	}
	return strings.Join(names, ", ")
}

// finish delivers what chaos still holds, then records or compares the outcome.
func (r *runner) finish(ctx context.Context) error {
	if err := r.deliverLate(ctx, -1); err != nil {
		return fmt.Errorf("scenario %s, the end: %w", r.sc.Name, err)
	}
	o, err := r.observe(ctx)
	if err != nil {
		return err
	}
	out, err := r.outcome(ctx, o)
	if err != nil {
		return err
	}
	if r.cfg.OutDir != "" {
		if err := os.MkdirAll(r.cfg.OutDir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(r.cfg.OutDir, r.sc.Name+".txt"), []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	if r.cfg.Against != "" {
		raw, err := os.ReadFile(filepath.Join(r.cfg.Against, r.sc.Name+".txt"))
		if err != nil {
			return fmt.Errorf("scenario %s: the outcome to compare with: %w", r.sc.Name, err)
		}
		if d := diff(strings.Split(strings.TrimSpace(string(raw)), "\n"), out); d != "" {
			return fmt.Errorf("scenario %s: the outcome differs from %s's:\n%s", r.sc.Name, r.cfg.Against, d)
		}
		r.say("   outcome equals %s's (%d lines)", r.cfg.Against, len(out))
	}
	r.say("   ok: %s, %d steps", r.sc.Name, len(r.sc.Steps))
	return nil
}

// diff lists the lines only one side has (- the expected outcome's, + this run's).
func diff(want, got []string) string {
	count := map[string]int{}
	for _, l := range want {
		count[l]++
	}
	for _, l := range got {
		count[l]--
	}
	var out []string
	for l, n := range count {
		for ; n > 0; n-- {
			out = append(out, "  - "+l)
		}
		for ; n < 0; n++ {
			out = append(out, "  + "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// advanceTo moves the simulated time to target, playing on the way what Paddle does when its time comes
// (renewals, trial ends, scheduled cancellations and pauses), each at its own time with its effect.
func (r *runner) advanceTo(ctx context.Context, target time.Time, label string) error {
	if !target.After(r.now) {
		return fmt.Errorf("%s: %s is not after %s", label, target.Format(time.RFC3339), r.now.Format(time.RFC3339))
	}
	for {
		at, s, ok := r.m.next()
		if b, bok := r.m.boundary(r.now); bok && !b.After(target) && (!ok || b.Before(at)) {
			ran, err := r.moveTo(ctx, b)
			if err != nil {
				return err
			}
			if err := r.settle(ctx, b, label+" · month boundary"+ran); err != nil {
				return err
			}
			continue
		}
		if !ok || at.After(target) {
			break
		}
		ran := ""
		if at.After(r.now) {
			var err error
			if ran, err = r.moveTo(ctx, at); err != nil {
				return err
			}
		}
		what, evs, err := r.m.due(s, at)
		if err != nil {
			return err
		}
		if err := r.deliver(ctx, evs); err != nil {
			return err
		}
		if err := r.settle(ctx, at, fmt.Sprintf("%s · %s [%s]: %s%s", label, s.label, what, eventNames(evs), ran)); err != nil {
			return err
		}
	}
	if !target.After(r.now) {
		return nil
	}
	ran, err := r.moveTo(ctx, target)
	if err != nil {
		return err
	}
	return r.settle(ctx, target, label+ran)
}
