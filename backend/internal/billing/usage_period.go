package billing

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/db"
)

// What the usage package asks billing about a user before it meters them: the tier (whose features
// apply) and the usage month (whose counters apply). A subscriber's usage month is their subscription's
// grant month (the calendar of grants.go, so usage resets when the month's credits arrive); a free
// user's is the calendar month, UTC.

// UsageContext is one user as usage meters them.
type UsageContext struct {
	Tier    string
	Deleted bool
	// Anchor is the current period start of the subscription that gives the user their tier; nil for a
	// user on the free tier (calendar months).
	Anchor *time.Time
}

// usageContextSQL reads the users and, for each, the subscription their tier comes from: live, or
// canceled with its paid period still running (the tier is kept until it ends). Two subscriptions of one
// tier (flagged duplicates): the one whose period started last. One row of arrays, so the read rides in
// a pipelined transaction's batch like any one-row statement; the anchor travels as Unix microseconds
// (0: none). %s selects the users.
const usageContextSQL = `SELECT coalesce(array_agg(u.id), '{}'), coalesce(array_agg(u.current_tier), '{}'),
       coalesce(array_agg((u.deleted_at IS NOT NULL)::int), '{}'),
       coalesce(array_agg(coalesce((extract(epoch FROM s.current_period_start) * 1000000)::bigint, 0)), '{}')
  FROM users u LEFT JOIN LATERAL (
    SELECT x.current_period_start FROM subscriptions x
     WHERE x.user_id = u.id AND x.tier = u.current_tier AND x.current_period_start IS NOT NULL
       AND (x.status = ANY($2) OR (x.status = 'canceled' AND x.current_period_end > $3))
     ORDER BY x.current_period_start DESC LIMIT 1) s ON true
 WHERE %s`

// UsageContextSQL reads several users ($1 an array), UsageContextOneSQL one ($1 its id). The one-user
// form is the common one (an event, a check, the entitlements) and is its own statement because
// Postgres's plan cache keeps planning `= ANY($1)` anew for every execution (a custom plan, which knows
// the array's length, always looks cheaper than the generic one), while `= $1` settles on a generic plan
// after five: TestRecordingStatementsSettleOnGenericPlans holds it. Exported for the usage benchmark's
// pgbench scripts, which are generated from them.
var (
	UsageContextSQL    = fmt.Sprintf(usageContextSQL, "u.id = ANY($1)")
	UsageContextOneSQL = fmt.Sprintf(usageContextSQL, "u.id = $1")
)

// UsageContextsTx reads the context of each user in ids (one statement); a user that does not exist is
// absent from the map.
func UsageContextsTx(ctx context.Context, tx *gorm.DB, ids []uuid.UUID, now time.Time) (map[uuid.UUID]UsageContext, error) {
	query, arg := UsageContextSQL, any(nil)
	if len(ids) == 1 {
		query, arg = UsageContextOneSQL, ids[0]
	} else {
		keys := make([]pgtype.UUID, len(ids))
		for i, id := range ids {
			keys[i] = pgtype.UUID{Bytes: id, Valid: true}
		}
		arg = keys
	}
	var (
		users   []pgtype.UUID
		tiers   []string
		deleted []int
		anchors []int64
	)
	if err := db.QueryRow(ctx, tx, query, []any{arg, LiveStatuses, now}, &users, &tiers, &deleted, &anchors); err != nil {
		return nil, fmt.Errorf("usage context: %w", db.Translate(err))
	}
	out := make(map[uuid.UUID]UsageContext, len(users))
	for i, pid := range users {
		id := uuid.UUID(pid.Bytes)
		c := UsageContext{Tier: tiers[i], Deleted: deleted[i] == 1}
		if anchors[i] != 0 {
			t := time.UnixMicro(anchors[i]).UTC()
			c.Anchor = &t
		}
		out[id] = c
	}
	return out, nil
}

// calendarAnchor anchors free users' months on the first of each calendar month, UTC.
var calendarAnchor = time.Date(1970, time.January, 1, 0, 0, 0, 0, time.UTC)

// UsageMonth is the usage month that at falls in: [start, end). With an anchor (a subscriber's period
// start) months start k months after it, as grant months do (the day clamped to the month's end, counted
// from the anchor each time), before the anchor as after it; without one, calendar months.
func UsageMonth(anchor *time.Time, at time.Time) (start, end time.Time) {
	a := calendarAnchor
	if anchor != nil {
		a = anchor.UTC()
	}
	at = at.UTC()
	k := (at.Year()-a.Year())*12 + int(at.Month()) - int(a.Month())
	for monthStart(a, k).After(at) {
		k--
	}
	for !monthStart(a, k+1).After(at) {
		k++
	}
	return monthStart(a, k), monthStart(a, k+1)
}
