package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/riverqueue/river"

	"github.com/fabrica-saas/fabrica/backend/internal/clock"
)

// Report is what a task did, as counters ("refunded": 3); it is logged and returned to `fabrica jobs run`.
type Report map[string]int

// Task is one scheduled maintenance job: a name, how often it runs, and the work. Every task is idempotent
// and bounded per run, so running it twice, from two instances, or by hand next to the schedule is safe.
type Task struct {
	Name  string
	Every time.Duration
	Run   func(ctx context.Context, now time.Time) (Report, error)
	// RealTime marks a task that keeps the machine's time (storage housekeeping, a download): moving
	// development's clock does not run it (App.MoveClock runs the others whose schedule it crossed).
	RealTime bool
}

// TaskArgs enqueues one run of a task by name.
type TaskArgs struct {
	Name string `json:"name"`
}

// Kind names the job type in river_job.
func (TaskArgs) Kind() string { return "task" }

// TaskWorker runs tasks for River.
type TaskWorker struct {
	river.WorkerDefaults[TaskArgs]
	tasks map[string]Task
	log   *slog.Logger
	now   func() time.Time
}

// NewTaskWorker builds the worker for tasks; each run gets now's time (app's clock).
func NewTaskWorker(tasks []Task, log *slog.Logger, now func() time.Time) *TaskWorker {
	m := make(map[string]Task, len(tasks))
	for _, t := range tasks {
		m[t.Name] = t
	}
	return &TaskWorker{tasks: m, log: log, now: clock.Or(now)}
}

// TaskTimeout bounds one task run; a task does a bounded batch per run, so this is generous. A task cut off
// by a crash is rescued only after it (tasks are idempotent, so a second run beside a slow first is safe).
const TaskTimeout = 10 * time.Minute

// Timeout bounds one run.
func (w *TaskWorker) Timeout(*river.Job[TaskArgs]) time.Duration { return TaskTimeout }

// Work runs the named task once.
func (w *TaskWorker) Work(ctx context.Context, job *river.Job[TaskArgs]) error {
	t, ok := w.tasks[job.Args.Name]
	if !ok {
		return river.JobCancel(fmt.Errorf("unknown task %q", job.Args.Name))
	}
	_, err := RunTask(ctx, t, w.now(), w.log)
	return err
}

// RunTask runs t now and logs what it did; `fabrica jobs run` and the worker share it.
func RunTask(ctx context.Context, t Task, now time.Time, log *slog.Logger) (Report, error) {
	start := time.Now()
	rep, err := t.Run(ctx, now)
	attrs := []any{"task", t.Name, "duration_ms", time.Since(start).Milliseconds()}
	keys := make([]string, 0, len(rep))
	for k := range rep {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		attrs = append(attrs, k, rep[k])
	}
	if err != nil {
		log.Error("task failed", append(attrs, "error", err.Error())...)
		return rep, fmt.Errorf("task %s: %w", t.Name, err)
	}
	log.Info("task done", attrs...)
	return rep, nil
}

// PeriodicJobs schedules every task on River. River elects one leader among all running clients to
// enqueue periodic jobs; the unique-by-period option also keeps a leader change or a restart (RunOnStart,
// so frequent deploys cannot starve a daily task) from enqueuing the same period twice.
func PeriodicJobs(tasks []Task) []*river.PeriodicJob {
	out := make([]*river.PeriodicJob, 0, len(tasks))
	for _, t := range tasks {
		args := TaskArgs{Name: t.Name}
		opts := &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: t.Every}}
		out = append(out, river.NewPeriodicJob(river.PeriodicInterval(t.Every),
			func() (river.JobArgs, *river.InsertOpts) { return args, opts },
			&river.PeriodicJobOpts{RunOnStart: true}))
	}
	return out
}
