package catchup

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/verify"
	"github.com/fabrica-saas/fabrica/backend/internal/webhook"
)

// cursorSkew is how far past the database's clock a cursor's time may be (Paddle's clock and ours differ
// a little) before verify calls it a cursor from the future.
const cursorSkew = 5 * time.Minute

// Checks are the pull reconciliation's checks, for `fabrica verify sync`. every is how often the Paddle
// events sync runs (PADDLE_EVENTS_SYNC_INTERVAL). Without a Paddle client the sync is off and the check
// holds trivially.
func (s *Service) Checks(every time.Duration) []verify.Check {
	const name = "sync.paddle_cursor"
	return []verify.Check{{Name: name, Area: "sync",
		Doc: "with PADDLE_API_KEY: the Paddle events cursor is a well-formed event id, not in the future, and past every event of a handled type claimed more than three sync intervals ago (within Paddle's 72 h retry window)",
		Run: func(ctx context.Context, tx *gorm.DB, _ verify.Scope) ([]verify.Violation, error) {
			if s.d.Paddle == nil {
				return nil, nil
			}
			return s.checkPaddleCursor(ctx, tx.WithContext(ctx), name, every)
		}}}
}

// checkPaddleCursor: the sync lists every event of the handled types after the cursor and moves the
// cursor past them, the ones the webhooks already brought included (as skipped). So an event we claimed
// three intervals ago lies behind the cursor unless the sync has stopped moving: failing, never scheduled,
// or its cursor written wrong. A missing cursor is the same as one at the start of time: the first run
// writes it as soon as Paddle lists one event.
func (s *Service) checkPaddleCursor(ctx context.Context, tx *gorm.DB, name string, every time.Duration) ([]verify.Violation, error) {
	var row struct {
		Cursor *string
		Now    time.Time
	}
	if err := tx.Raw(`SELECT (SELECT cursor FROM sync_cursors WHERE name = ?) AS cursor, now() AS now`,
		PaddleCursor).Scan(&row).Error; err != nil {
		return nil, err
	}
	cursor := ""
	if row.Cursor != nil {
		cursor = *row.Cursor
		at, err := eventTime(cursor)
		switch {
		case err != nil:
			return []verify.Violation{{Subject: PaddleCursor, Detail: fmt.Sprintf("cursor %q is not a Paddle event id: %v", cursor, err)}}, nil
		case at.After(row.Now.Add(cursorSkew)):
			return []verify.Violation{{Subject: PaddleCursor,
				Detail: fmt.Sprintf("cursor %s is at %s, in the future: the sync skips every event until then", cursor, at.UTC().Format(time.RFC3339))}}, nil
		}
	}
	lag := max(3*every, 30*time.Minute)
	return verify.Rows(ctx, tx, name, `SELECT @name AS subject,
		       format('cursor %s is behind %s claimed event(s) of handled types, the newest %s claimed at %s: the sync has not moved for %s',
		              coalesce(NULLIF(@cursor, ''), 'missing'), x.n, x.newest, x.at, make_interval(secs => @lag)) AS detail
		  FROM (SELECT count(*) AS n, max(c.event_id) AS newest, max(c.processed_at) AS at
		          FROM (`+webhook.ClaimView+`) c
		         WHERE c.provider = @provider AND c.event_id > @cursor AND c.event_type IN @types
		           AND c.processed_at >= now() - make_interval(secs => @lookback) AND c.processed_at < now() - make_interval(secs => @lag)) x
		 WHERE x.n > 0`,
		map[string]any{"name": PaddleCursor, "cursor": cursor, "provider": webhook.ProviderPaddle, "types": s.d.PaddleEventTypes,
			"lookback": FirstLookback.Seconds(), "lag": lag.Seconds()})
}

// eventTime is the time of a Paddle event id ("evt_" and a lower-case ULID).
func eventTime(id string) (time.Time, error) {
	rest, ok := strings.CutPrefix(id, "evt_")
	if !ok {
		return time.Time{}, fmt.Errorf("no evt_ prefix")
	}
	u, err := ulid.ParseStrict(strings.ToUpper(rest))
	if err != nil {
		return time.Time{}, err
	}
	return ulid.Time(u.Time()), nil
}
