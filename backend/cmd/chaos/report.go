package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// report prints what was done and what was found as Markdown tables (docs/reliability.md quotes one).
func (r *runner) report(results []result, took time.Duration) {
	w := r.out
	fmt.Fprintf(w, "\n## What was done (%d servers, %d events, times from the load's start)\n\n", r.fleet.size(), len(r.events))
	fmt.Fprintln(w, "| t | action | observed |\n|--:|---|---|")
	for _, s := range r.timeline {
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.since(s.at), s.did, s.saw)
	}
	fmt.Fprintln(w, "\n## Deliveries\n\n| phase | attempts | 200 new | 200 duplicate | 5xx | no answer (refused, reset) |\n|---|--:|--:|--:|--:|--:|")
	for _, phase := range []string{"load", "redeliver"} {
		var n, fresh, dup, bad, none int
		for _, a := range r.drv.log() {
			if a.phase != phase {
				continue
			}
			n++
			switch {
			case a.status == http.StatusOK && a.idempotent:
				dup++
			case a.status == http.StatusOK:
				fresh++
			case a.status >= 500:
				bad++
			case a.status == 0:
				none++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d |\n", phase, n, fresh, dup, bad, none)
	}
	for _, line := range r.faultFindings() {
		fmt.Fprintln(w, "- "+line)
	}
	fmt.Fprintln(w, "\n## Checks\n\n| check | want | got | verdict |\n|---|---|---|---|")
	failed := 0
	for _, c := range results {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", c.name, c.want, c.got, c.verdict)
		if c.verdict == verdictFail {
			failed++
		}
	}
	verdict := "PASS"
	if failed > 0 {
		verdict = fmt.Sprintf("FAIL (%d checks)", failed)
		r.printLogErrors()
	}
	fmt.Fprintf(w, "\nchaos: %s in %s\n", verdict, fmtDur(took))
}

// faultFindings are the measurements behind the faults: what the kill cut, what the restart cost, and
// how River's leadership moved.
func (r *runner) faultFindings() []string {
	cut, committed := 0, 0
	cutEvents := map[int]bool{}
	var around int
	for _, a := range r.drv.log() {
		if a.server == r.f.killed && a.status == 0 && a.start.Before(r.f.killAt) && !a.end.Before(r.f.killAt) {
			cut++
			cutEvents[a.event] = true
		}
		if a.status >= 500 && !a.end.Before(r.f.pgDownAt) && a.end.Before(r.f.pgUpAt.Add(30*time.Second)) {
			around++
		}
	}
	// An event whose request the kill cut and whose retry was answered as a duplicate had committed on the
	// killed server: the answer was lost, not the effect.
	for _, a := range r.drv.log() {
		if cutEvents[a.event] && a.phase == "load" && a.status == http.StatusOK && a.idempotent {
			committed++
			delete(cutEvents, a.event)
		}
	}
	out := []string{
		fmt.Sprintf("kill -9 of %s cut %d requests in flight; %d of those events had committed before the kill (their retry was answered as a duplicate)", r.f.killed.name(), cut, committed),
		fmt.Sprintf("5xx answers within 30 s of the Postgres restart: %d (handler_failed or not ready; each retried)", around),
	}
	servers := r.fleet.incarnations()
	leaderAtKill := serverOf(r.leaders.at(r.f.killAt), servers)
	line := fmt.Sprintf("River leader at the kill: %s; changes:", leaderAtKill)
	for _, c := range r.leaders.history() {
		line += fmt.Sprintf(" %s at %s,", serverOf(c.id, servers), r.since(c.seen))
	}
	return append(out, strings.TrimSuffix(line, ","))
}

// printLogErrors shows the first ERROR lines of each server's log when a check failed.
func (r *runner) printLogErrors() {
	for _, s := range r.fleet.incarnations() {
		f, err := os.Open(s.logPath)
		if err != nil {
			continue
		}
		shown := 0
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() && shown < 5 {
			if strings.Contains(sc.Text(), "level=ERROR") {
				fmt.Fprintf(r.out, "chaos: %s log: %s\n", s.name(), sc.Text())
				shown++
			}
		}
		f.Close()
	}
}

// writeAttempts saves every attempt as CSV in the work directory (with -keep), for forensics: which
// server answered what, when, and whether it was draining.
func (r *runner) writeAttempts() error {
	f, err := os.Create(filepath.Join(r.dir, "attempts.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"phase", "event_id", "server", "start", "end", "status", "idempotent", "draining", "error"})
	for _, a := range r.drv.log() {
		_ = w.Write([]string{a.phase, r.events[a.event].id, a.server.name(), a.start.Format(time.RFC3339Nano),
			a.end.Format(time.RFC3339Nano), strconv.Itoa(a.status), strconv.FormatBool(a.idempotent),
			strconv.FormatBool(a.draining), a.err})
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}
