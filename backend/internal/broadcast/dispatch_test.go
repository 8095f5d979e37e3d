package broadcast_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/broadcast"
)

// Four dispatchers of one run at once, behind a start barrier, with pages of 7: every consenting user gets
// exactly one recipient row and one send job; non-consenting, deleted and address-less users get none.
func TestConcurrentDispatchersInsertEachRecipientOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{PageSize: 7})
	consenting := e.users(t, "yes", 40, userOpts{consent: true})
	e.users(t, "no", 10, userOpts{})
	e.users(t, "gone", 3, userOpts{consent: true, deleted: true})
	e.users(t, "mute", 2, userOpts{consent: true, noEmail: true})
	run := started(t, svc, news)

	start := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			<-start
			errs <- svc.Dispatch(context.Background(), run.ID)
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM broadcast_recipients WHERE run_id = ?`, run.ID))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(DISTINCT args) FROM river_job WHERE kind = 'broadcast_send'`))
	got, err := svc.Get(context.Background(), run.ID)
	require.NoError(t, err)
	require.NotNil(t, got.DispatchedAt)
	require.Equal(t, broadcast.Counts{Pending: int64(len(consenting))}, got.Counts)
}

// A dispatcher that dies on its third page leaves two committed pages (recipients and their jobs together)
// and nothing of the third; the retry resumes after the last committed user and inserts only the rest.
func TestCrashedDispatchResumesWhereItStopped(t *testing.T) {
	t.Parallel()
	e := setup(t)
	const pageSize = 5
	consenting := e.users(t, "c", 23, userOpts{consent: true})
	crashing := &failingJobs{Queue: e.queue, failAt: 3}
	run := started(t, e.service(crashing, broadcast.Config{PageSize: pageSize}), news)

	err := e.service(crashing, broadcast.Config{PageSize: pageSize}).Dispatch(context.Background(), run.ID)
	require.ErrorIs(t, err, errCrash)
	require.Equal(t, int64(2*pageSize), e.count(t, `SELECT count(*) FROM broadcast_recipients`))
	require.Equal(t, int64(2*pageSize), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))

	resumed := &failingJobs{Queue: e.queue}
	require.NoError(t, e.service(resumed, broadcast.Config{PageSize: pageSize}).Dispatch(context.Background(), run.ID))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM broadcast_recipients`))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))
	require.Equal(t, int64(3), resumed.calls.Load(), "13 users left: pages of 5, 5 and 3, none of the first two pages again")

	// A third run of the whole dispatch (River retrying after the commit) changes nothing.
	require.NoError(t, e.service(nil, broadcast.Config{PageSize: pageSize}).Dispatch(context.Background(), run.ID))
	require.Equal(t, int64(len(consenting)), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_send'`))
}

// A dispatcher that pages after the run was fully dispatched inserts nothing, even for a user who became
// eligible meanwhile: no recipient appears after the run could have finished.
func TestLateDispatcherInsertsNothingAfterTheDispatchCompleted(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	e.users(t, "a", 2, userOpts{consent: true})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	// The highest possible id, so the resumed keyset would reach it.
	require.NoError(t, e.db.Exec(`INSERT INTO users (id, clerk_user_id, email, email_verified, marketing_consent_given)
		VALUES ('ffffffff-ffff-4fff-bfff-ffffffffffff', 'user_late', 'late@example.com', true, true)`).Error)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	require.Equal(t, int64(2), e.count(t, `SELECT count(*) FROM broadcast_recipients`))
}

// An empty audience finishes as soon as it is dispatched; sending a finished run again does nothing.
func TestEmptyAudienceFinishesAndSendingAgainIsANoOp(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{})
	run := started(t, svc, news)
	require.NoError(t, svc.Dispatch(context.Background(), run.ID))
	got, err := svc.Send(context.Background(), operator, run.ID)
	require.NoError(t, err)
	require.Equal(t, broadcast.StatusFinished, got.Status)
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.send_requested'`))
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM river_job WHERE kind = 'broadcast_dispatch'`))
}

// Dispatchers and senders at once, pages of 5: three dispatchers race while four senders work every job
// they can see, again and again, in random order, until the run finishes (so two senders often work one
// recipient at once, which River alone would not do). No statement deadlocks, every consenting user is
// mailed exactly once, and the run finishes exactly once.
func TestDispatchersAndSendersAtOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	svc := e.service(nil, broadcast.Config{PageSize: 5})
	users := e.users(t, "x", 60, userOpts{consent: true})
	run := started(t, svc, news)

	start := make(chan struct{})
	dispatched := make(chan struct{})
	var dwg, swg sync.WaitGroup
	errs := make(chan error, 64)
	for range 3 {
		dwg.Go(func() {
			<-start
			errs <- svc.Dispatch(context.Background(), run.ID)
		})
	}
	for range 4 {
		swg.Go(func() {
			<-start
			for {
				select {
				case <-dispatched:
					if e.count(t, `SELECT count(*) FROM broadcast_runs WHERE status = 'finished'`) == 1 {
						return
					}
				default:
				}
				var jobs []struct{ UserID uuid.UUID }
				if err := e.db.Raw(`SELECT (args->>'user_id')::uuid AS user_id FROM river_job WHERE kind = 'broadcast_send'
					ORDER BY random()`).Scan(&jobs).Error; err != nil {
					errs <- err
					return
				}
				for _, j := range jobs {
					// Two senders on one recipient at once: one claims it, the other is told to retry.
					if err := svc.Deliver(context.Background(), run.ID, j.UserID, false); err != nil && !errors.Is(err, broadcast.ErrInFlight) {
						errs <- err
						return
					}
				}
			}
		})
	}
	close(start)
	dwg.Wait()
	close(dispatched)
	swg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	msgs := e.sender.messages()
	require.Len(t, msgs, len(users))
	seen := map[string]bool{}
	for _, m := range msgs {
		require.False(t, seen[m.To], "mailed twice: %s", m.To)
		seen[m.To] = true
	}
	require.Equal(t, int64(1), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'broadcast.finished'`))
	require.Equal(t, int64(len(users)), e.count(t, `SELECT count(*) FROM audit_logs WHERE action = 'email.sent'`))
}
