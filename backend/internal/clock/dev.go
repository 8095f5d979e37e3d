package clock

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// PollEvery is how often a development process reads the stored offset; Settle is how long whoever moved
// the clock waits before saying so, by which time every other process has read it.
const (
	PollEvery = 100 * time.Millisecond
	Settle    = 3 * PollEvery
)

// Dev is development's movable clock: the machine's time plus an offset stored in the dev_clock table, so
// every process of a development setup (serve, worker, a one-shot command) tells the same time, and the
// simulated time flows on at the machine's pace from wherever it was set. A process reads the row when it
// starts and every PollEvery after; Set writes it and applies it to its own process at once, and the
// others see it within PollEvery (App.MoveClock waits Settle before it answers).
//
// Only app builds a Dev, and only when APP_ENV=development: staging and production run on System and
// never read the table, so a row that came along with a copied database changes nothing there.
type Dev struct {
	db     *sql.DB
	log    *slog.Logger
	offset atomic.Int64 // nanoseconds
	// mu orders Set and each poll's read-and-store: a poll that read the old row must not store it after
	// Set applied the new one.
	mu      sync.Mutex
	stop    chan struct{}
	stopped chan struct{}
}

// NewDev reads the stored offset and starts polling it until Close. A database without the table yet (a
// development database before `fabrica migrate up`) tells the machine's time until the table appears.
func NewDev(ctx context.Context, db *sql.DB, log *slog.Logger) *Dev {
	d := &Dev{db: db, log: log, stop: make(chan struct{}), stopped: make(chan struct{})}
	if off, err := d.read(ctx); err == nil {
		d.offset.Store(int64(off))
	}
	go d.poll()
	return d
}

// Now is the machine's time plus the offset.
func (d *Dev) Now() time.Time { return time.Now().Add(d.Offset()) }

// Offset is how far the clock is moved from the machine's time (0: not moved).
func (d *Dev) Offset() time.Duration { return time.Duration(d.offset.Load()) }

// Set stores the offset for every process and applies it here; 0 removes it (the machine's time again).
// Microseconds are what the table keeps.
func (d *Dev) Set(ctx context.Context, offset time.Duration) error {
	offset = offset.Truncate(time.Microsecond)
	d.mu.Lock()
	defer d.mu.Unlock()
	var err error
	if offset == 0 {
		_, err = d.db.ExecContext(ctx, `DELETE FROM dev_clock`)
	} else {
		_, err = d.db.ExecContext(ctx, `INSERT INTO dev_clock (id, offset_us, updated_at) VALUES (true, $1, now())
			ON CONFLICT (id) DO UPDATE SET offset_us = EXCLUDED.offset_us, updated_at = now()`, offset.Microseconds())
	}
	if err != nil {
		return fmt.Errorf("set the development clock: %w", err)
	}
	d.offset.Store(int64(offset))
	return nil
}

// Close stops polling.
func (d *Dev) Close() {
	select {
	case <-d.stop:
	default:
		close(d.stop)
		<-d.stopped
	}
}

func (d *Dev) read(ctx context.Context) (time.Duration, error) {
	var us int64
	err := d.db.QueryRowContext(ctx, `SELECT offset_us FROM dev_clock`).Scan(&us)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return time.Duration(us) * time.Microsecond, err
}

// poll keeps the offset in step with the table. A failed read keeps the last offset and is logged once
// until a read succeeds again (a missing table before the migration, a database restart).
func (d *Dev) poll() {
	defer close(d.stopped)
	t := time.NewTicker(PollEvery)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
		}
		d.mu.Lock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		off, err := d.read(ctx)
		cancel()
		if err == nil {
			d.offset.Store(int64(off))
		}
		d.mu.Unlock()
		switch {
		case err != nil && !failing:
			failing = true
			d.log.Warn("development clock: cannot read the stored offset; keeping the last one", "error", err.Error())
		case err == nil:
			failing = false
		}
	}
}
