package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/devauth"
	"github.com/fabrica-saas/fabrica/backend/internal/trigger"
)

// cmdDevClock is `fabrica dev clock [set TIME | advance SPAN | reset] [--url URL]`: development's time
// travel (docs/simulate.md). Without an action it shows the clock. A move goes through the running
// development server (POST /api/v1/dev/clock as the dev admin), which stores the offset for every process,
// runs the periodic tasks whose schedule the move crossed and answers once every process tells the new
// time; this prints what those tasks did.
func cmdDevClock(ctx context.Context, env *environment, args []string) error {
	usage := errors.New("dev clock: want `dev clock`, `dev clock set 2027-03-01T00:00:00Z`, `dev clock advance 31d` " +
		"(y, mo, w, d, h, m, s) or `dev clock reset`, each with an optional --url")
	var action, value string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
		if action == "set" || action == "advance" {
			switch {
			case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
				value, args = args[0], args[1:]
			case !helpAsked(args): // `dev clock set --help` prints the flags below
				return usage
			}
		}
	}
	fs := flag.NewFlagSet("dev clock", flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	url := fs.String("url", "", "server base URL (default http://localhost:$PORT)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := devToolConfig(env, "dev clock", "staging and production always run on the machine's time")
	if err != nil {
		return err
	}
	base := serverURL(*url, cfg)
	client := &http.Client{Timeout: 10 * time.Minute}
	var body map[string]any
	switch action {
	case "":
		now, err := trigger.ServerClock(ctx, client, base)
		if err != nil {
			return fmt.Errorf("dev clock: %w", serverHint(base, err))
		}
		return printClock(env.stdout, now())
	case "set":
		at, err := time.Parse(time.RFC3339, value)
		if err != nil {
			return fmt.Errorf("dev clock set: %q is not an RFC 3339 time (2027-03-01T00:00:00Z)", value)
		}
		body = map[string]any{"set": at}
	case "advance":
		body = map[string]any{"advance": value}
	case "reset":
		body = map[string]any{"reset": true}
	default:
		return usage
	}
	if len(cfg.AdminEmails) == 0 {
		return errors.New("dev clock: ADMIN_EMAILS is empty: moving the clock is an operator's action")
	}
	key, err := devauth.LoadOrCreateKey(cfg.DevSessionKeyFile)
	if err != nil {
		return err
	}
	// The token is issued at the server's current time: after a move, a token of the machine's time would be
	// refused as not yet valid or long expired.
	tok, err := devauth.Token(key, devauth.Claims{UserID: devauth.DefaultAdminUserID, Email: cfg.AdminEmails[0],
		TTL: 10 * time.Minute}, devNow(ctx, base)())
	if err != nil {
		return err
	}
	var v clockAnswer
	if err := postJSON(ctx, client, base+"/api/v1/dev/clock", tok, body, &v); err != nil {
		return fmt.Errorf("dev clock %s: %w", action, err)
	}
	if err := printClock(env.stdout, v.Now); err != nil {
		return err
	}
	for _, t := range v.Tasks {
		keys := make([]string, 0, len(t.Report))
		for k := range t.Report {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%d", k, t.Report[k]))
		}
		if _, err := fmt.Fprintf(env.stdout, "  ran %s: %s\n", t.Name, strings.Join(parts, " ")); err != nil {
			return err
		}
	}
	return nil
}

type clockAnswer struct {
	Now   time.Time `json:"now"`
	Tasks []struct {
		Name   string         `json:"name"`
		Report map[string]int `json:"report"`
	} `json:"tasks"`
}

func printClock(w io.Writer, now time.Time) error {
	off := time.Until(now).Round(time.Second)
	what := "the machine's time"
	if off < -time.Second || off > time.Second {
		what = "moved " + span(off) + " from the machine's time"
	}
	_, err := fmt.Fprintf(w, "%s (%s)\n", now.UTC().Truncate(time.Second).Format(time.RFC3339), what)
	return err
}

// span prints an offset in days and hours: +453d4h, -2d.
func span(d time.Duration) string {
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	days, rest := d/(24*time.Hour), (d % (24 * time.Hour)).Round(time.Minute)
	switch {
	case days == 0:
		return sign + rest.String()
	case rest == 0:
		return fmt.Sprintf("%s%dd", sign, days)
	}
	return fmt.Sprintf("%s%dd%s", sign, days, strings.TrimSuffix(rest.String(), "0s"))
}

// postJSON posts body with a bearer token and decodes a 200 answer into out; any other answer is an error
// quoting the server.
func postJSON(ctx context.Context, client *http.Client, url, bearer string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%d %s", res.StatusCode, bytes.TrimSpace(raw))
	}
	return json.Unmarshal(raw, out)
}
