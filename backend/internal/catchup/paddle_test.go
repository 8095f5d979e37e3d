package catchup_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fabrica-saas/fabrica/backend/internal/catchup"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// The first run reads from Paddle's retry window back (72 hours before now), asks only for the types with
// a handler, and feeds every event it lists through the pipeline: the one a webhook already brought is a
// duplicate (nothing written), the others are processed once and archived with source "sync". The
// cursor ends at the last event listed, and the next run reads after it.
func TestPaddleSyncPullsWhatTheWebhooksMissedOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	pushedID, pushed := paddleEvent("subscription.created", now.Add(-3*time.Hour), false)
	missedID, missed := paddleEvent("subscription.created", now.Add(-2*time.Hour), false)
	renewalID, renewal := paddleEvent("transaction.completed", now.Add(-time.Hour), false)
	_, unhandled := paddleEvent("customer.updated", now.Add(-30*time.Minute), false)
	for _, b := range [][]byte{pushed, missed, renewal, unhandled} {
		e.events.add(t, b)
	}
	_, err := e.pipeline.IngestTrusted(context.Background(), webhook.ProviderPaddle, webhook.SourceWebhook, http.Header{}, pushed)
	require.NoError(t, err)

	rep, err := e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 3, Skipped: 1, Processed: 2}, rep)
	require.Equal(t, map[string]int{"listed": 3, "skipped": 1, "processed": 2, "failed": 0}, rep.Map())
	for _, id := range []string{pushedID, missedID, renewalID} {
		require.Equal(t, 1, e.applied(t, id), id)
	}
	require.Equal(t, []string{"webhook/processed"}, e.archived(t, webhook.ProviderPaddle, pushedID), "a duplicate writes nothing")
	require.Equal(t, []string{"sync/processed"}, e.archived(t, webhook.ProviderPaddle, missedID))
	require.Equal(t, renewalID, e.cursor(t))

	e.events.mu.Lock()
	first := e.events.requests[0]
	e.events.mu.Unlock()
	require.Equal(t, logRequest{After: catchup.EventIDAt(now.Add(-72 * time.Hour)), Types: strings.Join(paddleTypes, ","),
		Auth: "Bearer " + paddleKey}, first)
	require.Len(t, e.events.afters(), 2, "two pages: the second says there is no more")

	rep, err = e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{}, rep, "nothing after the cursor")
	afters := e.events.afters()
	require.Equal(t, renewalID, afters[len(afters)-1])
}

// A poison event (its handler fails) must not stop the sync: it is archived failed for an operator to
// replay, the good event after it is processed, and the cursor moves past both, so the next run does not
// read them again.
func TestPaddleSyncGoesOnPastAFailedHandler(t *testing.T) {
	t.Parallel()
	e := setup(t)
	badID, bad := paddleEvent("subscription.created", now.Add(-2*time.Hour), true)
	goodID, good := paddleEvent("transaction.completed", now.Add(-time.Hour), false)
	e.events.add(t, bad)
	e.events.add(t, good)

	rep, err := e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, map[string]int{"listed": 2, "skipped": 0, "processed": 1, "failed": 1}, rep.Map())
	require.Equal(t, []string{"sync/failed"}, e.archived(t, webhook.ProviderPaddle, badID))
	require.Zero(t, e.applied(t, badID))
	require.Equal(t, 1, e.applied(t, goodID))
	require.Equal(t, goodID, e.cursor(t), "past both")

	rep, err = e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{}, rep)
}

// breakingPipeline is the real pipeline, except that one event's delivery fails before anything commits
// (the connection is lost): not even a failure's archive row.
type breakingPipeline struct {
	catchup.Pipeline
	lost string
}

func (b breakingPipeline) IngestTrusted(ctx context.Context, provider, source string, h http.Header, body []byte) (webhook.Result, error) {
	var env struct {
		EventID string `json:"event_id"`
	}
	_ = json.Unmarshal(body, &env)
	if env.EventID == b.lost {
		return webhook.Result{}, errors.New("connection lost")
	}
	return b.Pipeline.IngestTrusted(ctx, provider, source, h, body)
}

// An event whose delivery did not commit stops the run before it: the cursor stays where it was, and
// the next run re-reads the page, where what did commit is a duplicate.
func TestPaddleSyncStopsBeforeAnEventThatDidNotCommit(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var ids []string
	for i := range 3 {
		id, body := paddleEvent("subscription.created", now.Add(time.Duration(i-3)*time.Hour), false)
		e.events.add(t, body)
		ids = append(ids, id)
	}
	broken := catchup.New(catchup.Deps{DB: e.db, Pipeline: breakingPipeline{Pipeline: e.pipeline, lost: ids[1]},
		Paddle: e.paddle, PaddleEventTypes: paddleTypes, Now: func() time.Time { return now }})
	rep, err := broken.SyncPaddle(context.Background())
	require.ErrorContains(t, err, "sync paddle event "+ids[1])
	require.Equal(t, catchup.Report{Listed: 2, Processed: 1}, rep)
	require.Empty(t, e.cursor(t), "the page did not finish: no cursor yet")
	require.Empty(t, e.archived(t, webhook.ProviderPaddle, ids[1]))

	rep, err = e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 3, Skipped: 1, Processed: 2}, rep)
	for _, id := range ids {
		require.Equal(t, 1, e.applied(t, id), id)
	}
	require.Equal(t, ids[2], e.cursor(t))
}

// The stored cursor only moves forward. The scheduled sync has read to the newest event; then a backfill
// from further back (`fabrica sync paddle --since`) stops halfway (Paddle answers 503 on its second page)
// after storing its first page's last event, which is older. Had the cursor moved back, the next sync
// would re-read everything after it; it reads after the newest event instead.
func TestPaddleCursorNeverMovesBack(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var ids []string
	for i := range 5 {
		id, body := paddleEvent("subscription.created", now.Add(time.Duration(i-5)*time.Hour), false)
		e.events.add(t, body)
		ids = append(ids, id)
	}
	rep, err := e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, 5, rep.Processed)
	require.Equal(t, ids[4], e.cursor(t))

	e.events.mu.Lock()
	e.events.failOn = len(e.events.requests) + 2 // the backfill's second page
	e.events.mu.Unlock()
	rep, err = e.svc.BackfillPaddle(context.Background(), now.Add(-10*time.Hour))
	require.ErrorContains(t, err, "sync paddle events")
	require.Equal(t, catchup.Report{Listed: 2, Skipped: 2}, rep, "its first page: duplicates")
	require.Equal(t, ids[4], e.cursor(t), "not back to "+ids[1])

	rep, err = e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{}, rep)
	afters := e.events.afters()
	require.Equal(t, ids[4], afters[len(afters)-1], "the next sync reads after the newest event")
}

// A scheduled run reads at most MaxPagesPerRun pages and leaves the rest to the next one; a backfill
// reads to the end of the log. Both start where they are told: the sync at its cursor, the backfill at
// the time asked for, whatever the cursor says.
func TestPaddleSyncRunIsBoundedAndBackfillIsNot(t *testing.T) {
	t.Parallel()
	e := setup(t)
	e.events.perPage = 1
	const n = catchup.MaxPagesPerRun + 3
	var ids []string
	for i := range n {
		id, body := paddleEvent("subscription.created", now.Add(-time.Duration(n-i)*time.Minute), false)
		e.events.add(t, body)
		ids = append(ids, id)
	}
	rep, err := e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: catchup.MaxPagesPerRun, Processed: catchup.MaxPagesPerRun}, rep)
	require.Equal(t, ids[catchup.MaxPagesPerRun-1], e.cursor(t))
	require.Len(t, e.events.afters(), catchup.MaxPagesPerRun)

	rep, err = e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 3, Processed: 3}, rep)
	require.Equal(t, ids[n-1], e.cursor(t))

	before := len(e.events.afters())
	since := now.Add(-time.Duration(n) * time.Minute)
	rep, err = e.svc.BackfillPaddle(context.Background(), since)
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: n, Skipped: n}, rep, "past the per-run bound, all duplicates")
	require.Equal(t, catchup.EventIDAt(since), e.events.afters()[before])
	require.Equal(t, ids[n-1], e.cursor(t))
}

// EventIDAt is the smallest event id of its millisecond: every id Paddle gives an event at t sorts at or
// after it, and before the next millisecond's.
func TestEventIDAtSortsBeforeEveryEventOfItsTime(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	cursor := catchup.EventIDAt(at)
	require.Equal(t, "evt_", cursor[:4])
	require.Len(t, cursor, len("evt_")+26)
	require.Equal(t, strings.ToLower(cursor), cursor, "Paddle's ids are lower case")
	require.True(t, strings.HasSuffix(cursor, strings.Repeat("0", 16)), "a zero random part: %s", cursor)
	for range 20 {
		id := catchup.NewEventID(at)
		require.LessOrEqual(t, cursor, id)
		require.Less(t, id, catchup.EventIDAt(at.Add(time.Millisecond)))
		require.Less(t, catchup.EventIDAt(at.Add(-time.Millisecond)), cursor)
	}
}

// Without PADDLE_API_KEY or CLERK_SECRET_KEY the syncs refuse to run rather than report nothing done.
func TestSyncsWithoutAProviderClientAreDisabled(t *testing.T) {
	t.Parallel()
	off := catchup.New(catchup.Deps{})
	_, err := off.SyncPaddle(context.Background())
	require.ErrorIs(t, err, catchup.ErrDisabled)
	_, err = off.BackfillPaddle(context.Background(), now)
	require.ErrorIs(t, err, catchup.ErrDisabled)
	_, err = off.SyncClerkUsers(context.Background())
	require.ErrorIs(t, err, catchup.ErrDisabled)
}

// A run over an empty log writes no cursor: the next run still starts at its own 72-hour window.
func TestPaddleSyncOfAnEmptyLogWritesNoCursor(t *testing.T) {
	t.Parallel()
	e := setup(t)
	rep, err := e.svc.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{}, rep)
	require.Empty(t, e.cursor(t))
}

// unknowing is the real pipeline whose Known never knows: the webhook claims the event between the pull's
// check and its delivery.
type unknowing struct{ catchup.Pipeline }

func (unknowing) Known(context.Context, string, string) (bool, error) { return false, nil }

// A webhook and the pull deliver the same event at once: the pull's delivery finds the claim taken, is
// archived skipped and counted skipped, and the event has one effect.
func TestPaddleSyncRacingTheWebhookCountsASkip(t *testing.T) {
	t.Parallel()
	e := setup(t)
	id, body := paddleEvent("subscription.created", now.Add(-time.Hour), false)
	e.events.add(t, body)
	_, err := e.pipeline.IngestTrusted(context.Background(), webhook.ProviderPaddle, webhook.SourceWebhook, http.Header{}, body)
	require.NoError(t, err)

	racing := catchup.New(catchup.Deps{DB: e.db, Pipeline: unknowing{e.pipeline}, Paddle: e.paddle, PaddleEventTypes: paddleTypes,
		Now: func() time.Time { return now }})
	rep, err := racing.SyncPaddle(context.Background())
	require.NoError(t, err)
	require.Equal(t, catchup.Report{Listed: 1, Skipped: 1}, rep)
	require.Equal(t, []string{"webhook/processed", "sync/skipped"}, e.archived(t, webhook.ProviderPaddle, id))
	require.Equal(t, 1, e.applied(t, id))
}
