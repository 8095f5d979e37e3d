package app

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/pgtest"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// A worker killed mid-send (kill -9, OOM) leaves its job "running" under a River client that no longer
// exists. The leader's rescuer must retry it once it has been stuck for RescueStuckJobsAfter (2 minutes),
// not after River's default hour, and must leave alone a job that has run for less. The jobs are made to
// look stuck for 3 minutes and for 1 minute, so the test takes seconds; `make chaos` shows the same with a
// real kill -9 (docs/reliability.md).
func TestEmailOfACrashedWorkerIsRescued(t *testing.T) {
	t.Parallel()
	d := pgtest.New(t)
	sender := &recordingSender{}
	a := appOn(t, d, map[string]string{"SHUTDOWN_TIMEOUT": "5s"}, Options{EmailSender: sender})
	for _, u := range []string{"user_stuck3m", "user_stuck1m"} {
		h, body := clerkEvent(t, "msg_"+u, "user.created", u, u+"@example.com", 1_700_000_000_000)
		require.Equal(t, http.StatusOK, deliver(a.Echo(), webhook.ProviderClerk, h, body).Code)
	}
	// What a crashed worker leaves behind: attempt 1 running on a dead client, for 3 and for 1 minute.
	require.NoError(t, d.Gorm.Exec(`UPDATE river_job SET state = 'running', attempt = 1, attempted_by = ARRAY['crashed_client'],
		attempted_at = now() - CASE WHEN args->>'idempotency_key' = 'welcome/user_stuck3m' THEN interval '3 minutes' ELSE interval '1 minute' END
		WHERE kind = 'email'`).Error)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.RunWorkers(ctx) }()
	state := func(key string) (st string, rescued bool) {
		require.NoError(t, d.Gorm.Raw(`SELECT state, coalesce(errors::text, '') LIKE '%Stuck job rescued%' FROM river_job
			WHERE args->>'idempotency_key' = ?`, key).Row().Scan(&st, &rescued))
		return st, rescued
	}
	require.Eventually(t, func() bool { st, _ := state("welcome/user_stuck3m"); return st == "completed" }, 30*time.Second, 100*time.Millisecond)
	cancel()
	require.NoError(t, <-done)

	_, rescued := state("welcome/user_stuck3m")
	require.True(t, rescued, "completed by the rescuer's retry")
	st, _ := state("welcome/user_stuck1m")
	require.Equal(t, "running", st, "the same rescuer run left the job stuck for less than RescueStuckJobsAfter")
	msgs := sender.messages()
	require.Len(t, msgs, 1)
	require.Equal(t, "welcome/user_stuck3m", msgs[0].IdempotencyKey)
}
