package app

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/fabrica-saas/fabrica/backend/internal/audit"
	"github.com/fabrica-saas/fabrica/backend/internal/clock"
	"github.com/fabrica-saas/fabrica/backend/internal/httpapi"
	"github.com/fabrica-saas/fabrica/backend/internal/jobs"
)

// ErrClockFixed refuses a clock move outside development: staging and production run on the machine's
// time, whatever the dev_clock table holds.
var ErrClockFixed = errors.New("the clock moves only in development (APP_ENV=development)")

// ActionClockMoved is the audit action of a development clock move.
const ActionClockMoved = "dev.clock_moved"

// devTools is httpapi.DevTools on the App: the development clock and the mail queue.
type devTools struct{ a *App }

func (d devTools) Clock(context.Context) (httpapi.ClockView, error) { return d.a.clockView(nil), nil }

func (d devTools) MoveClock(ctx context.Context, by audit.Actor, m httpapi.ClockMove) (httpapi.ClockView, error) {
	return d.a.MoveClock(ctx, by, m)
}

func (d devTools) Emails(ctx context.Context, addr string) ([]httpapi.EmailView, error) {
	sqlDB, err := d.a.db.DB()
	if err != nil {
		return nil, err
	}
	queued, err := jobs.EmailsTo(ctx, sqlDB, addr)
	out := make([]httpapi.EmailView, 0, len(queued))
	for _, e := range queued {
		out = append(out, httpapi.EmailView(e))
	}
	return out, err
}

// devTools are the /dev routes' backend: development's movable clock only (nil otherwise, and with a
// test's fixed Options.Clock).
func (a *App) devTools() httpapi.DevTools {
	if a.devClock == nil {
		return nil
	}
	return devTools{a}
}

func (a *App) clockView(runs []httpapi.TaskRun) httpapi.ClockView {
	v := httpapi.ClockView{Now: a.clock.Now().UTC(), Tasks: runs}
	if a.devClock != nil {
		off := a.devClock.Offset()
		v.Moved, v.OffsetSeconds = off != 0, off.Seconds()
	}
	return v
}

// MoveClock moves development's clock (set, advance or reset) for every process and runs, once each at
// the new time and in the task list's order, the periodic tasks whose schedule the move crossed (an epoch-
// aligned multiple of Every between the old and the new time), except those that keep the machine's time
// (Task.RealTime). Each task catches up whatever came due meanwhile, as it does after downtime, so one
// move of a month grants, expires and downgrades what a month of schedules would have. It returns once
// every process tells the new time (clock.Settle after the write), so a caller's next request sees it
// anywhere. Moving back runs nothing. Outside development: ErrClockFixed.
func (a *App) MoveClock(ctx context.Context, by audit.Actor, m httpapi.ClockMove) (httpapi.ClockView, error) {
	if a.devClock == nil {
		return httpapi.ClockView{}, ErrClockFixed
	}
	from := a.clock.Now()
	offset := time.Duration(0)
	switch {
	case m.Set != nil:
		offset = time.Until(*m.Set)
	case m.Advance != "":
		to, err := clock.Advance(from, m.Advance)
		if err != nil {
			return httpapi.ClockView{}, httpapi.NewError(http.StatusUnprocessableEntity, "validation_failed", err.Error())
		}
		offset = a.devClock.Offset() + to.Sub(from)
	}
	if err := a.devClock.Set(ctx, offset); err != nil {
		return httpapi.ClockView{}, err
	}
	written := time.Now()
	to := a.clock.Now()
	if err := audit.Write(ctx, a.db, by.Entry(ActionClockMoved, "clock", "dev", map[string]any{
		"from": from.UTC(), "to": to.UTC()})); err != nil {
		return httpapi.ClockView{}, err
	}
	var runs []httpapi.TaskRun
	for _, t := range a.tasks() {
		if t.RealTime || !crossed(t.Every, from, to) {
			continue
		}
		rep, err := jobs.RunTask(ctx, t, a.clock.Now(), a.log)
		if err != nil {
			return httpapi.ClockView{}, err
		}
		if rep == nil {
			rep = jobs.Report{}
		}
		runs = append(runs, httpapi.TaskRun{Name: t.Name, Report: rep})
	}
	select {
	case <-time.After(clock.Settle - time.Since(written)):
	case <-ctx.Done():
		return httpapi.ClockView{}, ctx.Err()
	}
	a.log.Info("development clock moved", "from", from.UTC().Format(time.RFC3339), "to", to.UTC().Format(time.RFC3339),
		"tasks", len(runs))
	return a.clockView(runs), nil
}

// crossed reports whether a schedule of every, aligned on the Unix epoch, has a tick in (from, to].
func crossed(every time.Duration, from, to time.Time) bool {
	if every <= 0 || !to.After(from) {
		return false
	}
	return to.UnixNano()/int64(every) > from.UnixNano()/int64(every)
}
