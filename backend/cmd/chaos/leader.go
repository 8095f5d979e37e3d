package main

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// leaderChange is one River leader seen in river_leader: River elects one client among all processes to
// run the maintenance services, the job rescuer among them, so who leads decides who rescues.
type leaderChange struct {
	seen time.Time
	id   string // River client id: <host>_<start time>, or "" when no leader row exists
}

// leaderWatch polls river_leader twice a second and keeps every change.
type leaderWatch struct {
	mu      sync.Mutex
	changes []leaderChange
	stop    context.CancelFunc
	done    chan struct{}
}

func watchLeader(ctx context.Context, db *pgxpool.Pool) *leaderWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &leaderWatch{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			var id string
			// During the Postgres restart the query fails: that is not a leader change, so it is skipped.
			err := db.QueryRow(ctx, `SELECT coalesce((SELECT leader_id FROM river_leader WHERE expires_at > now() LIMIT 1), '')`).Scan(&id)
			if err == nil {
				w.note(id)
			}
			if !sleep(ctx, 500*time.Millisecond) {
				return
			}
		}
	}()
	return w
}

func (w *leaderWatch) note(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.changes); n == 0 || w.changes[n-1].id != id {
		w.changes = append(w.changes, leaderChange{seen: time.Now(), id: id})
	}
}

func (w *leaderWatch) close() {
	w.stop()
	<-w.done
}

func (w *leaderWatch) history() []leaderChange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]leaderChange(nil), w.changes...)
}

// at is the leader seen at t ("" if none yet).
func (w *leaderWatch) at(t time.Time) string {
	id := ""
	for _, c := range w.history() {
		if c.seen.After(t) {
			break
		}
		id = c.id
	}
	return id
}

// clientStart reads the start time River encodes in a default client id (host_2006_01_02T15_04_05_000000).
func clientStart(id string) (time.Time, bool) {
	const layout = "2006_01_02T15_04_05.000000"
	if len(id) < len(layout) {
		return time.Time{}, false
	}
	stamp := id[len(id)-len(layout):]
	i := strings.LastIndexByte(stamp, '_')
	t, err := time.Parse(layout, stamp[:i]+"."+stamp[i+1:])
	return t, err == nil
}

// serverOf names the incarnation a River client id belongs to: River builds its client after the
// process starts and before the server answers its ready probe, and the suite never starts a process
// while another is between the two.
func serverOf(id string, servers []*server) string {
	t, ok := clientStart(id)
	switch {
	case id == "":
		return "none"
	case !ok:
		return id
	}
	for _, s := range servers {
		if !s.started.After(t) && (s.readyAt.IsZero() || !t.After(s.readyAt)) {
			return s.name()
		}
	}
	return "?"
}
