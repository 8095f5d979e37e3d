package app

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// jobs.Queue writes river_job rows with its own statement instead of River's client. This holds those rows
// to what River expects: the insert wakes listening workers with River's notification, and River's
// workers, already running and idle, fetch and complete the job.
func TestQueuedJobsAreWorkedByRiver(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	sender := &recordingSender{}
	a := appOn(t, d, map[string]string{"SHUTDOWN_TIMEOUT": "5s"}, Options{EmailSender: sender})

	listener, err := pgx.Connect(context.Background(), d.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = listener.Close(context.Background()) })
	_, err = listener.Exec(context.Background(), `LISTEN "public.river_insert"`)
	require.NoError(t, err)

	runWorkers(t, a)

	h, body := clerkEvent(t, "msg_queued", "user.created", "user_q", "queued@example.com", 1_700_000_000_000)
	require.Equal(t, http.StatusOK, deliver(a.Echo(), webhook.ProviderClerk, h, body).Code)

	waitCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	n, err := listener.WaitForNotification(waitCtx)
	require.NoError(t, err, "the insert sends River's insert notification")
	require.JSONEq(t, `{"queue":"email"}`, n.Payload)

	require.Eventually(t, func() bool { return len(sender.messages()) == 1 }, 10*time.Second, 20*time.Millisecond)
	var job struct {
		Kind, Queue, State   string
		MaxAttempts, Attempt int
		Priority             int
	}
	require.Eventually(t, func() bool {
		require.NoError(t, d.Gorm.Raw(`SELECT kind, queue, state, max_attempts, attempt, priority FROM river_job`).Scan(&job).Error)
		return job.State == "completed"
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, "email", job.Kind)
	require.Equal(t, "email", job.Queue)
	require.Equal(t, 12, job.MaxAttempts, "EmailArgs.InsertOpts")
	require.Equal(t, 1, job.Attempt)
	require.Equal(t, 1, job.Priority)
	require.Equal(t, "welcome/user_q", sender.messages()[0].IdempotencyKey)
}
