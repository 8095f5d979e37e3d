package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// RunnerConfig is what the job runner needs from the service configuration.
type RunnerConfig struct {
	DatabaseURL string
	// SimpleProtocol matches db.Config: behind PgBouncer's transaction pooling there are no prepared
	// statements and no LISTEN/NOTIFY, so River polls.
	SimpleProtocol bool
	MaxWorkers     int
	// Observer hears every job attempt's outcome (metrics); nil for none.
	Observer Observer
}

// RescueStuckJobsAfter is how long a running job may go without finishing before another process retries
// it (River's JobRescuer), unless its worker's Timeout is longer.
const RescueStuckJobsAfter = 2 * time.Minute

// Runner works jobs: a River client on its own pgx pool (River needs pgx for LISTEN/NOTIFY and its
// fetch loop; the web pool stays GORM's).
type Runner struct {
	client        *river.Client[pgx.Tx]
	pool          *pgxpool.Pool
	stopObserving func()
}

// Observer hears each job attempt's outcome (metrics).
type Observer interface {
	JobFinished(kind, outcome string)
}

// NewRunner builds a runner for workers and periodic jobs. Several runners (web and worker processes, or
// several instances) can share one database: River's locking hands each job to one of them, and elects
// one leader to enqueue periodic jobs.
func NewRunner(ctx context.Context, cfg RunnerConfig, log *slog.Logger, workers *river.Workers, periodic []*river.PeriodicJob) (*Runner, error) {
	pcfg, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("job runner: %w", err)
	}
	if cfg.SimpleProtocol {
		pcfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	pcfg.MaxConns = int32(cfg.MaxWorkers + 4)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("job runner: %w", err)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		// A job whose worker died (kill -9, an OOM, a lost host) stays "running" until the leader's rescuer
		// sees it stuck; River's default waits an hour. Every worker here bounds its attempt (Timeout), and
		// the rescuer waits for the larger of this and that bound, so a crashed email send is retried within
		// about two minutes (plus the rescuer's 30 s tick) and a long task only after its own timeout.
		RescueStuckJobsAfter: RescueStuckJobsAfter,
		// River's defaults, stated: `fabrica verify` counts jobs only as far back as these keep them.
		CompletedJobRetentionPeriod: KeptFor,
		CancelledJobRetentionPeriod: KeptFor,
		Logger:                      log,
		PollOnly:                    cfg.SimpleProtocol,
		Workers:                     workers,
		PeriodicJobs:                periodic,
		Queues: map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: cfg.MaxWorkers},
			QueueEmail:         {MaxWorkers: cfg.MaxWorkers},
			QueueBroadcast:     {MaxWorkers: BroadcastMaxWorkers},
		},
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("job runner: %w", err)
	}
	r := &Runner{client: client, pool: pool}
	if cfg.Observer != nil {
		r.observe(cfg.Observer)
	}
	return r, nil
}

// observe forwards job outcomes to o until Stop.
func (r *Runner) observe(o Observer) {
	events, cancel := r.client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed,
		river.EventKindJobCancelled, river.EventKindJobSnoozed)
	r.stopObserving = cancel
	go func() {
		for ev := range events {
			o.JobFinished(ev.Job.Kind, strings.TrimPrefix(string(ev.Kind), "job_"))
		}
	}()
}

// Start begins fetching and working jobs in the background.
func (r *Runner) Start(ctx context.Context) error {
	if err := r.client.Start(ctx); err != nil {
		return fmt.Errorf("start jobs: %w", err)
	}
	return nil
}

// Stop waits for running jobs to finish (bounded by ctx), then closes the pool. A job cut off by the
// deadline is retried later: jobs are at-least-once, and each worker is idempotent.
func (r *Runner) Stop(ctx context.Context) error {
	err := r.client.Stop(ctx)
	if err != nil {
		err = r.client.StopAndCancel(context.WithoutCancel(ctx))
	}
	if r.stopObserving != nil {
		r.stopObserving()
	}
	r.pool.Close()
	if err != nil {
		return fmt.Errorf("stop jobs: %w", err)
	}
	return nil
}
