package catchup

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// PaddleCursor names the Paddle events sync in sync_cursors.
const PaddleCursor = "paddle-events"

// FirstLookback is how far back the first run of the sync starts when no cursor is stored: Paddle's own
// retry window, so nothing it still retries is missed. Older gaps need `fabrica sync paddle --since`.
const FirstLookback = 72 * time.Hour

// MaxPagesPerRun bounds one run (200 events a page); the schedule does the rest.
const MaxPagesPerRun = 25

// SyncPaddle reads Paddle's event log after the stored cursor and feeds every event through the pipeline.
// The cursor moves only past events whose transaction committed (processed, skipped or archived failed);
// a run that stops on an error keeps the cursor before the event that failed to commit, and the next run
// re-reads from there: what already committed is then a duplicate, so nothing is processed twice. Two
// instances running it at once are safe for the same reason (and River runs one per period anyway).
func (s *Service) SyncPaddle(ctx context.Context) (Report, error) {
	if s.d.Paddle == nil {
		return Report{}, ErrDisabled
	}
	cursor, err := s.cursor(ctx, PaddleCursor)
	if err != nil {
		return Report{}, err
	}
	if cursor == "" {
		cursor = EventIDAt(s.d.Now().Add(-FirstLookback))
	}
	return s.pullPaddle(ctx, cursor, true)
}

// BackfillPaddle feeds every event since `since` through the pipeline (`fabrica sync paddle --since 72h`).
// It reads from a cursor made of the time (Paddle event ids are ULIDs: time-ordered) to the end of the log,
// and moves the stored cursor only forward.
func (s *Service) BackfillPaddle(ctx context.Context, since time.Time) (Report, error) {
	if s.d.Paddle == nil {
		return Report{}, ErrDisabled
	}
	return s.pullPaddle(ctx, EventIDAt(since), false)
}

func (s *Service) pullPaddle(ctx context.Context, after string, bounded bool) (Report, error) {
	var rep Report
	for pages := 0; !bounded || pages < MaxPagesPerRun; pages++ {
		page, err := s.d.Paddle.ListEvents(ctx, after, s.d.PaddleEventTypes)
		if err != nil {
			return rep, fmt.Errorf("sync paddle events: %w", err)
		}
		for _, ev := range page.Events {
			rep.Listed++
			if err := s.feedPaddle(ctx, ev.ID, ev.Body, &rep); err != nil {
				return rep, err
			}
			after = ev.ID
			// One cursor write per event would double the work of a sync; per page, a crash re-reads at most
			// a page of events that are then duplicates.
		}
		if len(page.Events) > 0 {
			if err := s.advance(ctx, PaddleCursor, after); err != nil {
				return rep, err
			}
		}
		if !page.HasMore || len(page.Events) == 0 {
			break
		}
	}
	return rep, nil
}

func (s *Service) feedPaddle(ctx context.Context, id string, body []byte, rep *Report) error {
	known, err := s.d.Pipeline.Known(ctx, webhook.ProviderPaddle, id)
	if err != nil {
		return fmt.Errorf("sync paddle event %s: %w", id, err)
	}
	if known {
		rep.Skipped++
		return nil
	}
	res, err := s.d.Pipeline.IngestTrusted(ctx, webhook.ProviderPaddle, webhook.SourceSync, http.Header{}, body)
	if err != nil && !errors.Is(err, webhook.ErrHandlerFailed) {
		// Nothing committed (not even the archive row): stop before this event.
		return fmt.Errorf("sync paddle event %s: %w", id, err)
	}
	rep.add(res)
	return nil
}

// EventIDAt is the smallest Paddle event id of time t ("evt_" and a lower-case ULID whose random part is
// zero), usable as an `after` cursor: the log returns the events from t on.
func EventIDAt(t time.Time) string {
	id := ulid.MustNew(ulid.Timestamp(t), zeroReader{})
	return "evt_" + strings.ToLower(id.String())
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

var _ io.Reader = zeroReader{}

// NewEventID is a fresh Paddle-shaped event id for time t (fakes and sample events).
func NewEventID(t time.Time) string {
	return "evt_" + strings.ToLower(ulid.MustNew(ulid.Timestamp(t), rand.Reader).String())
}

// cursor reads a stored cursor, "" when none.
func (s *Service) cursor(ctx context.Context, name string) (string, error) {
	var c []string
	if err := s.d.DB.WithContext(ctx).Raw(`SELECT cursor FROM sync_cursors WHERE name = ?`, name).Scan(&c).Error; err != nil {
		return "", fmt.Errorf("read sync cursor: %w", err)
	}
	if len(c) == 0 {
		return "", nil
	}
	return c[0], nil
}

// advance moves a cursor forward to `to`, never back (a backfill or a slower concurrent run may reach an
// older id after a newer one was stored).
func (s *Service) advance(ctx context.Context, name, to string) error {
	err := s.d.DB.WithContext(ctx).Exec(`INSERT INTO sync_cursors (name, cursor) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET cursor = EXCLUDED.cursor, updated_at = now()
		WHERE sync_cursors.cursor < EXCLUDED.cursor`, name, to).Error
	if err != nil {
		return fmt.Errorf("advance sync cursor: %w", err)
	}
	return nil
}
