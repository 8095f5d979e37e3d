package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// verifyReport is the part of `fabrica verify --json` the suite reads.
type verifyReport struct {
	Violations int `json:"violations"`
	Checks     []struct {
		Name       string `json:"name"`
		Violations int    `json:"violations"`
		Found      []struct {
			Subject string `json:"subject"`
			Detail  string `json:"detail"`
		} `json:"found"`
	} `json:"checks"`
}

// verifyResult runs `fabrica verify` on the suite's database once the email queue has drained: every
// consistency check of the project (the ledger, the claims and their archive, one welcome email job per
// user, ...) on the data the kill, the drain and the Postgres restart left behind. It runs the binary
// under test, so the command's own exit status is checked too: 0 clean, 1 violations, 2 could not run.
func (r *runner) verifyResult(ctx context.Context) result {
	const name = "fabrica verify: every consistency check"
	cmd := exec.CommandContext(ctx, r.bin, "verify", "--json")
	cmd.Dir, cmd.Env = r.dir, r.env
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		detail := err.Error()
		if exit != nil {
			detail += ": " + firstLine(string(exit.Stderr))
		}
		return holds(name, "0 violations", "could not run: "+detail, false)
	}
	var rep verifyReport
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		return holds(name, "0 violations", "unreadable report: "+jerr.Error(), false)
	}
	if rep.Violations == 0 && err == nil {
		return holds(name, "0 violations", fmt.Sprintf("0 violations in %d checks", len(rep.Checks)), true)
	}
	var bad []string
	for _, c := range rep.Checks {
		if c.Violations > 0 && len(c.Found) > 0 {
			bad = append(bad, fmt.Sprintf("%s: %d (%s: %s)", c.Name, c.Violations, c.Found[0].Subject, c.Found[0].Detail))
		}
	}
	return holds(name, "0 violations", fmt.Sprintf("%d violations: %s", rep.Violations, strings.Join(bad, "; ")), false)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
