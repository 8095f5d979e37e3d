package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// killOne waits until email jobs are in flight, starts a burst on slot, kills it with SIGKILL while the
// burst is in flight, and starts a fresh process on the same port a second later, like a supervisor.
func (r *runner) killOne(ctx context.Context, slot int, burst []int) (func() int, error) {
	running := r.waitBusy(ctx, 20*time.Second)
	s := r.fleet.at(slot)
	wait := r.drv.burst(ctx, "load", burst, slot)
	sleep(ctx, 20*time.Millisecond)
	if err := s.kill(); err != nil {
		return wait, fmt.Errorf("kill %s: %w", s.name(), err)
	}
	r.f.killed, r.f.killAt = s, time.Now()
	<-s.done
	r.note(r.f.killAt, "kill -9 "+s.name(), fmt.Sprintf("%d email jobs running in the fleet, a burst of %d in flight on it", running, len(burst)))
	sleep(ctx, time.Second)
	next, err := r.fleet.startReady(ctx, slot, r.probe, 30*time.Second)
	if err != nil {
		return wait, err
	}
	r.note(next.readyAt, "restart as "+next.name(), fmt.Sprintf("ready %.1fs after the start", next.readyAt.Sub(next.started).Seconds()))
	return wait, nil
}

// waitBusy waits (at most limit) until the load has run a few seconds and every server could be holding
// email jobs: four running per server. It returns the count it saw.
func (r *runner) waitBusy(ctx context.Context, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	n := 0
	for time.Now().Before(deadline) {
		err := r.db.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'email' AND state = 'running'`).Scan(&n)
		if err == nil && n >= 4*r.fleet.size() && time.Since(r.t0) > 3*time.Second {
			break
		}
		if !sleep(ctx, 200*time.Millisecond) {
			break
		}
	}
	return n
}

// findStranded records the email jobs still running that started before the kill. The live servers'
// sends take the sink's delay; eight seconds after the kill only the dead process's jobs are left.
func (r *runner) findStranded(ctx context.Context) error {
	rows, err := r.db.Query(ctx, `SELECT id, attempted_by[array_upper(attempted_by, 1)] FROM river_job
		WHERE kind = 'email' AND state = 'running' AND attempted_at < $1 ORDER BY id`, r.f.killAt)
	if err != nil {
		return fmt.Errorf("stranded jobs: %w", err)
	}
	defer rows.Close()
	owners := map[string]bool{}
	for rows.Next() {
		var id int64
		var owner string
		if err := rows.Scan(&id, &owner); err != nil {
			return err
		}
		r.f.stranded = append(r.f.stranded, id)
		owners[owner] = true
		r.f.strandedOwner = owner
	}
	if err := rows.Err(); err != nil {
		return err
	}
	saw := fmt.Sprintf("%d email jobs left running by %s", len(r.f.stranded), serverOf(r.f.strandedOwner, r.fleet.incarnations()))
	if len(owners) > 1 {
		saw += fmt.Sprintf(" (on %d River clients: not only the killed one)", len(owners))
	}
	r.note(time.Now(), "look for stranded jobs", saw)
	return nil
}

// drainOne starts a burst on slot, sends SIGTERM while it is in flight, waits for the drain and starts a
// fresh process once the old one has exited (a rolling deploy).
func (r *runner) drainOne(ctx context.Context, slot int, burst []int) (func() int, error) {
	s := r.fleet.at(slot)
	wait := r.drv.burst(ctx, "load", burst, slot)
	sleep(ctx, 20*time.Millisecond)
	if err := s.terminate(); err != nil {
		return wait, fmt.Errorf("SIGTERM %s: %w", s.name(), err)
	}
	r.f.drained, r.f.termAt = s, time.Now()
	if err := s.wait(ctx, shutdownTimeout+5*time.Second); err != nil {
		r.f.drainErr = err
		_ = s.kill()
		<-s.done
	}
	exitedAt, exitErr := s.exited()
	r.f.drainTook = exitedAt.Sub(r.f.termAt)
	if r.f.drainErr == nil {
		r.f.drainErr = exitErr
	}
	r.note(r.f.termAt, "SIGTERM "+s.name(), fmt.Sprintf("exited after %.1fs (%s), a burst of %d in flight on it",
		r.f.drainTook.Seconds(), exitStatus(r.f.drainErr), len(burst)))
	next, err := r.fleet.startReady(ctx, slot, r.probe, 30*time.Second)
	if err != nil {
		return wait, err
	}
	r.note(next.readyAt, "restart as "+next.name(), fmt.Sprintf("ready %.1fs after the start", next.readyAt.Sub(next.started).Seconds()))
	return wait, nil
}

// restartPostgres restarts the cluster under the running servers while probing every server's
// /health/ready, and waits for each to answer 200 again without restarting any of them.
func (r *runner) restartPostgres(ctx context.Context) error {
	up := make(chan struct{})
	r.f.ready = map[string]readiness{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for slot := range r.fleet.size() {
		s := r.fleet.at(slot)
		wg.Go(func() {
			res := r.probeThrough(ctx, s, up)
			mu.Lock()
			r.f.ready[s.name()] = res
			mu.Unlock()
		})
	}
	r.f.pgDownAt = time.Now()
	err := r.pg.restart(ctx, r.opts.pgDown)
	r.f.pgUpAt = time.Now()
	close(up)
	wg.Wait()
	if err != nil {
		return err
	}
	saw := fmt.Sprintf("down for %.1fs;", r.f.pgUpAt.Sub(r.f.pgDownAt).Seconds())
	for slot := range r.fleet.size() {
		name := r.fleet.at(slot).name()
		res := r.f.ready[name]
		if res.err != nil {
			saw += " " + name + " NOT ready;"
			continue
		}
		saw += fmt.Sprintf(" %s ready %.1fs after%s;", name, res.back.Seconds(), map[bool]string{true: " (503 during)", false: ""}[res.sawNotReady])
	}
	did := "pg_ctl restart -m fast"
	if r.opts.pgDown > 0 {
		did = "pg_ctl stop -m fast, start " + r.opts.pgDown.String() + " later"
	}
	r.note(r.f.pgDownAt, did, strings.TrimSuffix(saw, ";"))
	return nil
}

// readiness is one server's ready probe through the Postgres restart.
type readiness struct {
	sawNotReady bool          // a probe answered anything but 200 while Postgres was restarting
	back        time.Duration // from Postgres accepting connections again to the first 200
	err         error
}

// probeThrough probes s every 100 ms from before the restart until a 200 after it (up closed), for at
// most 30 s after Postgres is back.
func (r *runner) probeThrough(ctx context.Context, s *server, up <-chan struct{}) readiness {
	var res readiness
	for {
		ok := probeReady(ctx, r.probe, s.port) == ""
		select {
		case <-up:
			// Read only after up is closed: pgUpAt is written before the close.
			if ok {
				res.back = time.Since(r.f.pgUpAt)
				return res
			}
			res.sawNotReady = true
			if time.Since(r.f.pgUpAt) > 30*time.Second {
				res.err = fmt.Errorf("%s not ready 30s after Postgres was back", s.name())
				return res
			}
		default:
			res.sawNotReady = res.sawNotReady || !ok
		}
		if !sleep(ctx, 100*time.Millisecond) {
			res.err = ctx.Err()
			return res
		}
	}
}
