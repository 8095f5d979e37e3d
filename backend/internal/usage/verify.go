package usage

import (
	"context"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// usageChecks recompute usage's derived state from the rows it is derived from. Each query returns
// (subject, detail) rows, one per difference. @horizon is the start of the oldest month usage_events
// still holds: older months may have lost events to retention, so their counters are not checked.
var usageChecks = []struct{ name, doc, query string }{
	{"usage.counter_is_sum_of_events", "each counter equals the sum of its usage month's recorded events",
		`SELECT format('%s %s %s', user_id, feature, period_start) AS subject,
		        format('events sum to %s, counter says %s', coalesce(e.total, 0), coalesce(c.used::text, 'nothing')) AS detail
		   FROM (SELECT user_id, feature, period_start, used FROM usage_counters
		          WHERE period_start >= @horizon AND ` + userScope + `) c
		   FULL JOIN (SELECT user_id, feature, period_start, sum(quantity) AS total FROM usage_events
		               WHERE kind = 'usage' AND period_start >= @horizon AND ` + userScope + `
		               GROUP BY user_id, feature, period_start) e USING (user_id, feature, period_start)
		  WHERE coalesce(e.total, 0) <> coalesce(c.used, 0)`},
	{"usage.claim_has_its_event", "each recorded claim's event is stored (claims are the dedup keys of events)",
		`SELECT format('%s %s', cl.user_id, cl.key) AS subject, format('no event %s for this %s claim', cl.event_id, cl.kind) AS detail
		   FROM usage_claims cl
		  WHERE cl.kind IN ('usage', 'gauge') AND cl.occurred_at >= @horizon AND ` + claimScope + `
		    AND NOT EXISTS (SELECT 1 FROM usage_events e WHERE e.occurred_at = cl.occurred_at AND e.id = cl.event_id)`},
	{"usage.gauge_is_its_newest_set", "each gauge holds the value of a set made at its set_at",
		`SELECT format('%s %s', g.user_id, g.feature) AS subject,
		        format('gauge says %s, no set at %s has that value', g.value, g.set_at) AS detail
		   FROM usage_gauges g
		  WHERE g.set_at >= @horizon AND ` + gaugeScope + `
		    AND NOT EXISTS (SELECT 1 FROM usage_events e WHERE e.user_id = g.user_id AND e.feature = g.feature
		                       AND e.kind = 'gauge' AND e.occurred_at = g.set_at AND e.quantity = g.value)`},
}

// The per-user scope of each query: @user is NULL for every user.
const (
	userScope  = `(CAST(@user AS uuid) IS NULL OR user_id = CAST(@user AS uuid))`
	claimScope = `(CAST(@user AS uuid) IS NULL OR cl.user_id = CAST(@user AS uuid))`
	gaugeScope = `(CAST(@user AS uuid) IS NULL OR g.user_id = CAST(@user AS uuid))`
)

// Checks are usage's consistency checks, for `fabrica verify` (area "usage").
func Checks() []verify.Check {
	out := make([]verify.Check, 0, len(usageChecks))
	for _, c := range usageChecks {
		out = append(out, verify.Check{Name: c.name, Area: "usage", Doc: c.doc,
			Run: func(ctx context.Context, tx *gorm.DB, s verify.Scope) ([]verify.Violation, error) {
				horizon, err := oldestPartition(tx.WithContext(ctx))
				if err != nil {
					return nil, err
				}
				var user any
				if s.UserID != nil {
					user = s.UserID.String()
				}
				return verify.Rows(ctx, tx, c.name, c.query, map[string]any{"user": user, "horizon": horizon})
			}})
	}
	return out
}
