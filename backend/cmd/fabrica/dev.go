package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/billing"
	"github.com/fabrica-saas/fabrica/backend/internal/config"
	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

// devToolConfig loads the configuration for a development tool (`dev token`, `seed`, `trigger`), which
// refuses any other environment before it reads a secret: only development trusts the dev key's sessions,
// only development wants demo data, and a webhook signed with a deployment's real secrets is a forged
// delivery that the deployment would accept. The process environment itself must say APP_ENV=development (an unset
// APP_ENV is production, and a .env file cannot say it for the process). why says what else.
func devToolConfig(env *environment, command, why string) (config.Config, error) {
	if e := strings.TrimSpace(env.getenv("APP_ENV")); e != config.EnvDevelopment {
		if e == "" {
			e = "unset, which is production"
		}
		return config.Config{}, fmt.Errorf("%s: only in development: set APP_ENV=development (APP_ENV is %s); %s", command, e, why)
	}
	return config.LoadForTool(env.getenv, ".env")
}

// serverURL is a command's --url, else the local server on PORT.
func serverURL(flagURL string, cfg config.Config) string {
	if flagURL != "" {
		return flagURL
	}
	return "http://localhost:" + strconv.Itoa(cfg.Port)
}

// cmdDev is `fabrica dev token ...` or `fabrica dev clock ...` (devclock.go).
func cmdDev(ctx context.Context, env *environment, args []string) error {
	switch {
	case len(args) > 0 && args[0] == "token":
		return cmdDevToken(ctx, env, args[1:])
	case len(args) > 0 && args[0] == "clock":
		return cmdDevClock(ctx, env, args[1:])
	}
	return errors.New("dev: want `dev token [--user ID] [--email EMAIL] [--admin] [--ttl 1h] [--url URL]` or " +
		"`dev clock [set 2027-03-01T00:00:00Z | advance 31d | reset] [--url URL]`")
}

// cmdDevToken is `fabrica dev token [--user ID] [--email EMAIL] [--admin] [--ttl 1h] [--url URL]`: a session
// token signed by the local dev key, alone on stdout, so TOKEN=$(fabrica dev token) works. It is issued at
// the local server's time when one answers (a moved clock would otherwise refuse it), else the machine's.
func cmdDevToken(ctx context.Context, env *environment, args []string) error {
	fs := flag.NewFlagSet("dev token", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	user := fs.String("user", "", "Clerk user id (default "+devauth.DefaultUserID+", or "+devauth.DefaultAdminUserID+" with --admin)")
	mail := fs.String("email", "", "the session's verified email (default dev@fabrica.test, or the first ADMIN_EMAILS with --admin)")
	admin := fs.Bool("admin", false, "sign in as an admin (an address of ADMIN_EMAILS)")
	ttl := fs.Duration("ttl", time.Hour, "lifetime of the token")
	url := fs.String("url", "", "the server whose clock the token follows (default http://localhost:$PORT)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := devToolConfig(env, "dev token", "a dev token is refused anywhere else")
	if err != nil {
		return err
	}
	c := devauth.Claims{UserID: *user, Email: *mail, TTL: *ttl}
	if c.UserID == "" {
		c.UserID = devauth.DefaultUserID
		if *admin {
			c.UserID = devauth.DefaultAdminUserID
		}
	}
	if c.Email == "" {
		c.Email = "dev@fabrica.test"
		if *admin {
			if len(cfg.AdminEmails) == 0 {
				return errors.New("dev token --admin: ADMIN_EMAILS is empty")
			}
			c.Email = cfg.AdminEmails[0]
		}
	}
	key, err := devauth.LoadOrCreateKey(cfg.DevSessionKeyFile)
	if err != nil {
		return err
	}
	tok, err := devauth.Token(key, c, devNow(ctx, serverURL(*url, cfg))())
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(env.stdout, tok)
	return err
}

// devNow is the development server's clock (docs/simulate.md: it may be moved), or the machine's when the
// server does not tell it (not running yet: the token or event is for later).
func devNow(ctx context.Context, baseURL string) func() time.Time {
	now, err := trigger.ServerClock(ctx, &http.Client{}, baseURL)
	if err != nil {
		return time.Now
	}
	return now
}

// cmdTrigger is `fabrica trigger PROVIDER EVENT [flags]`: a realistic signed sample event, posted to a
// running development server; one line per delivery; non-zero exit when any answer is not 2xx. Development
// only: with a deployment's secrets it would forge that deployment's webhooks.
func cmdTrigger(ctx context.Context, env *environment, args []string) error {
	if len(args) >= 1 && args[0] == "usage" {
		return cmdTriggerUsage(ctx, env, args[1:])
	}
	var spec trigger.Spec
	fs := flag.NewFlagSet("trigger", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	url := fs.String("url", "", "server base URL (default http://localhost:$PORT)")
	fs.StringVar(&spec.User, "user", "", "Clerk user id (default user_dev)")
	fs.StringVar(&spec.Email, "email", "", "the user's email (default <user>@fabrica.test)")
	fs.StringVar(&spec.Tier, "tier", "", "paid tier of a Paddle event (default pro)")
	fs.StringVar(&spec.Subscription, "subscription", "", "Paddle subscription id (default derived from the user)")
	fs.StringVar(&spec.EventID, "event-id", "", "idempotency key (default: a new one per call)")
	times := fs.Int("times", 1, "send the same event this many times")
	concurrency := fs.Int("concurrency", 1, "this many at once")
	if len(args) < 2 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[1], "-") {
		if helpAsked(args) {
			return fs.Parse([]string{"--help"}) // the flags, after commandHelp's usage line
		}
		return fmt.Errorf("trigger: want `trigger PROVIDER EVENT [flags]`; clerk: %v; paddle: %v", trigger.ClerkEvents, trigger.PaddleEvents)
	}
	spec.Provider, spec.Event = args[0], args[1]
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	cfg, err := devToolConfig(env, "trigger", "it signs with the configured webhook secrets, so anywhere else it forges deliveries")
	if err != nil {
		return err
	}
	b, err := newBuilder(cfg)
	if err != nil {
		return err
	}
	b.Now = devNow(ctx, serverURL(*url, cfg))
	d, err := b.Build(spec)
	if err != nil {
		return err
	}
	base := serverURL(*url, cfg)
	return printAnswers(env, "trigger", "deliveries", base, trigger.Send(ctx, &http.Client{}, base, spec.Provider, d, *times, *concurrency))
}

// printAnswers prints one line per answer and fails when any was not a 2xx, saying what a refused
// connection most likely means.
func printAnswers[A interface {
	OK() bool
	String() string
	Unanswered() error
}](env *environment, name, what, base string, answers []A) error {
	failed := 0
	var unreached error
	for _, a := range answers {
		if !a.OK() {
			failed++
		}
		if err := a.Unanswered(); err != nil {
			unreached = err
		}
		if _, err := fmt.Fprintln(env.stdout, a); err != nil {
			return err
		}
	}
	if failed > 0 {
		err := fmt.Errorf("%s: %d of %d %s were not answered 2xx", name, failed, len(answers), what)
		if unreached != nil {
			err = fmt.Errorf("%w: %w", err, serverHint(base, unreached))
		}
		return err
	}
	return nil
}

func newBuilder(cfg config.Config) (*trigger.Builder, error) {
	tiers, err := billing.LoadTiers(cfg.TiersFile)
	if err != nil {
		return nil, err
	}
	return &trigger.Builder{Tiers: tiers, Secrets: trigger.Secrets{Paddle: cfg.PaddleWebhookSecrets[0],
		Clerk: cfg.ClerkWebhookSecrets[0], Checkout: cfg.CheckoutSigningSecret}}, nil
}
