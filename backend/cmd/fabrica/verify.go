package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// Exit codes of `fabrica verify`: a script or CI step tells "the data is wrong" from "the check could not
// run" (no database, a bad flag).
const (
	exitViolations = 1
	exitError      = 2
)

const verifyUsage = `Usage: fabrica verify [AREA...] [--user ID] [--json] [--list]

Runs every consistency check (or those of the given areas: ledger, billing, webhooks, sync, account, jobs)
against DATABASE_URL in one read-only snapshot: safe on a production database, it writes nothing.
Prints a table of checks with their violations and time, then the violations (the first few of each
check, and how many in all).

  --user ID  limit the per-user checks (ledger, billing, account) to one user
  --json     print the report as JSON
  --list     list the checks and what each holds, without running them

Exit status: 0 no violation, 1 violations found, 2 the checks could not run.
docs/operations.md (Verify) says what each check holds and what to do when one fires.
`

// verifyArgs are the parsed arguments of `fabrica verify`.
type verifyArgs struct {
	areas      []string
	scope      verify.Scope
	json, list bool
	help       bool
}

// parseVerifyArgs reads areas and flags in any order (`verify ledger --user ID` and `verify --json ledger`).
func parseVerifyArgs(args []string) (verifyArgs, error) {
	var v verifyArgs
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") {
			v.areas = append(v.areas, arg)
			continue
		}
		switch name {
		case "h", "help":
			v.help = true
		case "json":
			v.json = true
		case "list":
			v.list = true
		case "user":
			if !hasValue {
				if i+1 == len(args) {
					return v, fmt.Errorf("--user needs a user id")
				}
				i++
				value = args[i]
			}
			id, err := uuid.Parse(value)
			if err != nil {
				return v, fmt.Errorf("--user %q is not a user id (a UUID)", value)
			}
			v.scope.UserID = &id
		default:
			return v, fmt.Errorf("unknown flag %s", arg)
		}
	}
	return v, nil
}

// cmdVerify runs the consistency checks and exits 0 (clean), 1 (violations) or 2 (could not run).
func cmdVerify(ctx context.Context, env *environment, args []string) error {
	v, err := parseVerifyArgs(args)
	if err != nil {
		fmt.Fprintf(env.stderr, "fabrica verify: %v\n\n%s", err, verifyUsage)
		return &exitErr{code: exitError}
	}
	if v.help {
		_, err := fmt.Fprint(env.stdout, verifyUsage)
		return err
	}
	a, err := bootQuiet(ctx, env)
	if err != nil {
		return &exitErr{code: exitError, err: err}
	}
	defer func() { _ = a.Close() }()
	checks, err := verify.Select(a.Checks(), v.areas)
	if err != nil {
		return &exitErr{code: exitError, err: fmt.Errorf("verify: %w", err)}
	}
	if v.list {
		return listChecks(env.stdout, checks)
	}
	rep, err := a.Verify(ctx, v.areas, v.scope)
	if err != nil {
		return &exitErr{code: exitError, err: err}
	}
	if v.json {
		err = writeVerifyJSON(env.stdout, rep)
	} else {
		err = writeVerifyTable(env.stdout, rep)
	}
	if err != nil {
		return &exitErr{code: exitError, err: err}
	}
	if n := rep.Violations(); n > 0 {
		return &exitErr{code: exitViolations, err: fmt.Errorf("verify: %d violation(s)", n)}
	}
	return nil
}

func listChecks(w io.Writer, checks []verify.Check) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHECK\tAREA\tHOLDS")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Area, c.Doc)
	}
	return tw.Flush()
}

// writeVerifyTable prints one line per check, the total, then each check's violations.
func writeVerifyTable(out io.Writer, rep verify.Report) error {
	w := bufio.NewWriter(out) // its Flush reports the first write error
	nameW, areaW := len("CHECK"), len("AREA")
	for _, r := range rep.Results {
		nameW, areaW = max(nameW, len(r.Check.Name)), max(areaW, len(r.Check.Area))
	}
	line := func(name, area, count, took string) {
		fmt.Fprintf(w, "%-*s  %-*s  %10s  %9s\n", nameW, name, areaW, area, count, took)
	}
	line("CHECK", "AREA", "VIOLATIONS", "TIME")
	failed := 0
	for _, r := range rep.Results {
		if r.Count > 0 {
			failed++
		}
		line(r.Check.Name, r.Check.Area, fmt.Sprint(r.Count), ms(r.Took))
	}
	fmt.Fprintf(w, "\n%d check(s), %d violation(s) in %d check(s), %s\n", len(rep.Results), rep.Violations(), failed, ms(rep.Took))
	for _, r := range rep.Results {
		if r.Count == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: %d violation(s): %s\n", r.Check.Name, r.Count, r.Check.Doc)
		for _, v := range r.Violations {
			fmt.Fprintf(w, "  %s  %s\n", v.Subject, v.Detail)
		}
		if r.Truncated() {
			fmt.Fprintf(w, "  ... and %d more\n", r.Count-len(r.Violations))
		}
	}
	return w.Flush()
}

// verifyJSON is the --json report.
type verifyJSON struct {
	Violations int         `json:"violations"`
	TookMS     float64     `json:"took_ms"`
	Checks     []checkJSON `json:"checks"`
}

type checkJSON struct {
	Name       string             `json:"name"`
	Area       string             `json:"area"`
	Doc        string             `json:"doc"`
	Violations int                `json:"violations"`
	TookMS     float64            `json:"took_ms"`
	Found      []verify.Violation `json:"found"`
}

func writeVerifyJSON(w io.Writer, rep verify.Report) error {
	out := verifyJSON{Violations: rep.Violations(), TookMS: msf(rep.Took), Checks: []checkJSON{}}
	for _, r := range rep.Results {
		out.Checks = append(out.Checks, checkJSON{Name: r.Check.Name, Area: r.Check.Area, Doc: r.Check.Doc,
			Violations: r.Count, TookMS: msf(r.Took), Found: append([]verify.Violation{}, r.Violations...)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", msf(d)) }

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
