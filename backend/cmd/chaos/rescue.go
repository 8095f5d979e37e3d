package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// rescued is what became of one email job the killed process left running.
type rescued struct {
	id        int64
	state     string
	late      time.Duration // finalized_at - kill time
	byRescuer bool          // its errors carry River's "Stuck job rescued by JobRescuer"
	rerunBy   string        // the River client of its last attempt
}

// rescueResult: every email job stranded by the kill -9 was rescued and sent within rescueWindow. With
// none stranded the suite demonstrated nothing, and says so with a FAIL.
func (r *runner) rescueResult(ctx context.Context) result {
	const name = "emails of the kill -9'd process sent within the rescue window"
	want := fmt.Sprintf(">= 1 stranded, all sent <= %s after the kill", fmtDur(rescueWindow))
	jobs, err := r.rescuedJobs(ctx)
	switch {
	case err != nil:
		return holds(name, want, err.Error(), false)
	case len(jobs) == 0:
		return holds(name, want, "no email job was in flight on the killed process: nothing demonstrated", false)
	}
	ok := true
	var lo, hi time.Duration = time.Hour, 0
	reruns := map[string]bool{}
	for _, j := range jobs {
		ok = ok && j.state == "completed" && j.byRescuer && j.late <= rescueWindow
		lo, hi = min(lo, j.late), max(hi, j.late)
		reruns[serverOf(j.rerunBy, r.fleet.incarnations())] = true
	}
	by := make([]string, 0, len(reruns))
	for s := range reruns {
		by = append(by, s)
	}
	sort.Strings(by)
	got := fmt.Sprintf("%d stranded on %s; completed %s-%s after the kill, re-run by %s",
		len(jobs), serverOf(r.f.strandedOwner, r.fleet.incarnations()), fmtDur(lo), fmtDur(hi), strings.Join(by, ", "))
	if !ok {
		got += fmt.Sprintf("; NOT all completed by the rescuer in time: %+v", jobs)
	}
	return holds(name, want, got, ok)
}

func (r *runner) rescuedJobs(ctx context.Context) ([]rescued, error) {
	if len(r.f.stranded) == 0 {
		return nil, nil
	}
	rows, err := r.db.Query(ctx, `SELECT id, state, finalized_at, errors::text LIKE '%Stuck job rescued by JobRescuer%',
		attempted_by[array_upper(attempted_by, 1)] FROM river_job WHERE id = ANY($1) ORDER BY id`, r.f.stranded)
	if err != nil {
		return nil, fmt.Errorf("rescued jobs: %w", err)
	}
	defer rows.Close()
	var out []rescued
	for rows.Next() {
		var j rescued
		var fin *time.Time
		var byRescuer *bool
		if err := rows.Scan(&j.id, &j.state, &fin, &byRescuer, &j.rerunBy); err != nil {
			return nil, err
		}
		if fin != nil {
			j.late = fin.Sub(r.f.killAt)
		} else {
			j.late = time.Since(r.f.killAt)
		}
		j.byRescuer = byRescuer != nil && *byRescuer
		out = append(out, j)
	}
	return out, rows.Err()
}

// fmtDur prints 2m05s.
func fmtDur(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
