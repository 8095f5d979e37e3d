package main

import (
	"context"
	"fmt"
	"time"
)

// burstSize is how many new events are started at once on a server just before it is killed or
// terminated, so that the fault lands on requests in flight (a paced stream alone leaves almost none).
const burstSize = 40

// facts are what the faults did, for the checks and the report.
type facts struct {
	killed        *server
	killAt        time.Time
	stranded      []int64 // email jobs left running by the killed process
	strandedOwner string  // the River client those jobs were running on

	drained   *server
	termAt    time.Time
	drainTook time.Duration
	drainErr  error

	pgDownAt, pgUpAt time.Time
	ready            map[string]readiness // per server name

	loadAcked, redeliveredAcked int
	emailsDoneAt                time.Time
}

// scenario runs the load and the three faults, spaced so each is observable, then the redelivery, and
// waits for the email queue to drain.
func (r *runner) scenario(ctx context.Context) error {
	n := len(r.events)
	paced, killBurst, termBurst := seq(0, n-2*burstSize), seq(n-2*burstSize, n-burstSize), seq(n-burstSize, n)
	r.t0 = time.Now()
	r.note(r.t0, "load", fmt.Sprintf("%d new events paced over %s by %d senders, plus two bursts of %d",
		len(paced), r.opts.load, r.opts.senders, burstSize))
	loaded := make(chan int, 1)
	go func() { loaded <- r.drv.run(ctx, "load", paced, r.opts.senders, r.opts.load/time.Duration(len(paced))) }()

	waitKillBurst, err := r.killOne(ctx, 0, killBurst)
	if err != nil {
		return err
	}
	if !sleep(ctx, time.Until(r.f.killAt.Add(8*time.Second))) {
		return ctx.Err()
	}
	if err := r.findStranded(ctx); err != nil {
		return err
	}
	if !sleep(ctx, time.Until(r.f.killAt.Add(10*time.Second))) {
		return ctx.Err()
	}
	waitTermBurst, err := r.drainOne(ctx, 1, termBurst)
	if err != nil {
		return err
	}
	if !sleep(ctx, 3*time.Second) {
		return ctx.Err()
	}
	if err := r.restartPostgres(ctx); err != nil {
		return err
	}
	r.f.loadAcked = <-loaded + waitKillBurst() + waitTermBurst()
	r.note(time.Now(), "load done", fmt.Sprintf("%d of %d events answered 200", r.f.loadAcked, n))

	r.f.redeliveredAcked = r.drv.run(ctx, "redeliver", seq(0, n), r.opts.senders, 0)
	r.note(time.Now(), "redeliver every event", fmt.Sprintf("%d of %d answered 200", r.f.redeliveredAcked, n))
	if err := r.waitEmails(ctx); err != nil {
		return err
	}
	r.fleet.stopAll(shutdownTimeout + 5*time.Second)
	r.note(time.Now(), "SIGTERM every server", "end of run")
	return ctx.Err()
}

// waitEmails waits until every welcome job is completed, or until the rescue window (plus a margin to
// see how late the last one is) has passed.
func (r *runner) waitEmails(ctx context.Context) error {
	deadline := r.f.killAt.Add(rescueWindow + 20*time.Second)
	lastNote := time.Now()
	for {
		var total, done int
		err := r.db.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE state = 'completed')
			FROM river_job WHERE kind = 'email'`).Scan(&total, &done)
		if err == nil && total >= len(r.events) && done == total {
			r.f.emailsDoneAt = time.Now()
			r.note(r.f.emailsDoneAt, "email queue drained", fmt.Sprintf("%d email jobs completed", done))
			return nil
		}
		if time.Now().After(deadline) {
			r.note(time.Now(), "email queue NOT drained", fmt.Sprintf("%d of %d completed at the deadline", done, total))
			return nil
		}
		if time.Since(lastNote) > 20*time.Second {
			lastNote = time.Now()
			fmt.Fprintf(r.out, "chaos: %7s  waiting for the rescue: %d of %d email jobs completed\n", r.since(lastNote), done, total)
		}
		if !sleep(ctx, time.Second) {
			return ctx.Err()
		}
	}
}

func seq(from, to int) []int {
	out := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func exitStatus(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}
