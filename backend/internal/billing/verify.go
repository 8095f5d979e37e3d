package billing

import (
	"context"
	"encoding/json"
	"time"

	"gorm.io/gorm"

	"github.com/fabrica-saas/fabrica/backend/internal/account"
	"github.com/fabrica-saas/fabrica/backend/internal/credits"
	"github.com/fabrica-saas/fabrica/backend/internal/verify"
)

// jobLag is how long an hourly job (expire-subscriptions, monthly-grants) may leave its work undone before
// verify reports it: two runs.
const jobLag = 2 * time.Hour

// monthsApart: two base grants of one subscription whose months start less than this apart are one month
// granted twice (a month start that drifted by seconds between two snapshots would give it a second key).
// Distinct months of a period are at least 28 days apart.
const monthsApart = 24 * time.Hour

// baseGrantKey matches grantJobID's keys, and only those: grant:<subscription>:<month start>, without the
// top-ups' suffixes. Group 1 is the subscription, group 2 the month start.
const baseGrantKey = `^grant:([^:]+):(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))$`

// userScope limits a query to the scope's user (@user NULL: every user).
const userScope = `(CAST(@user AS uuid) IS NULL OR user_id = CAST(@user AS uuid))`

// Checks are billing's consistency checks, for `fabrica verify billing`: the tiers users are on, the
// months granted, and the monthly-grants job keeping up.
func (s *Service) Checks() []verify.Check {
	ranks := make([]string, 0, len(s.tiers.List()))
	for _, t := range s.tiers.List() {
		ranks = append(ranks, t.Name)
	}
	rankJSON, _ := json.Marshal(ranks) // a []string always marshals
	args := func(sc verify.Scope) map[string]any {
		return map[string]any{"user": sc.User(), "free": s.tiers.Free().Name, "ranks": string(rankJSON),
			"access": AccessStatuses, "grant": grantStatuses, "lag": jobLag.Seconds(), "base": baseGrantKey,
			"apart": monthsApart.Seconds(), "now": sc.At()}
	}
	check := func(name, doc, query string) verify.Check {
		return verify.Check{Name: name, Area: "billing", Doc: doc,
			Run: func(ctx context.Context, tx *gorm.DB, sc verify.Scope) ([]verify.Violation, error) {
				return verify.Rows(ctx, tx, name, query, args(sc))
			}}
	}
	return []verify.Check{
		check("billing.tier_follows_subscriptions",
			"every live user is on the highest tier their subscriptions grant (trialing, active, past_due, or canceled before its period end; not paused or refunded), and on free without one",
			tierQuery),
		check("billing.month_granted_once",
			"each subscription month has at most one base grant (grant:<subscription>:<month start>), and it went to the subscription's user",
			monthQuery),
		check("billing.grants_keep_up",
			"no subscription the monthly-grants job grants has a month due for more than two hours (next_grant_at)",
			`SELECT paddle_subscription_id AS subject,
			        format('%s subscription: next month due at %s, still not looked at: the monthly-grants job is behind', status, next_grant_at) AS detail
			   FROM subscriptions
			  WHERE next_grant_at IS NOT NULL AND status IN @grant AND access_revoked_at IS NULL
			    AND greatest(next_grant_at, updated_at) < coalesce(CAST(@now AS timestamptz), now()) - make_interval(secs => @lag) AND `+userScope),
	}
}

// tierQuery recomputes each user's tier from their subscriptions as syncTier and ExpireCanceled keep it:
// a subscription grants its tier while trialing, active or past_due, or canceled before its period's
// end, unless a full refund revoked it; with several, the highest (later in the tiers file) wins; with
// none, free. A canceled one whose period ended less than jobLag ago (and whose row has not changed
// since) may still hold its tier: the hourly expire-subscriptions job has not come round yet. A
// soft-deleted user is left out: the expiry job skips them until they are restored.
var tierQuery = `WITH ranks AS (
	  SELECT name, ord FROM jsonb_array_elements_text(CAST(@ranks AS jsonb)) WITH ORDINALITY AS r(name, ord)
	), subs AS (
	  SELECT user_id, paddle_subscription_id, tier::text AS tier, status, created_at, (SELECT ord FROM ranks WHERE name = tier) AS rank,
	         access_revoked_at IS NULL AND (status IN @access OR (status = 'canceled' AND coalesce(current_period_end > coalesce(CAST(@now AS timestamptz), now()), false))) AS grants,
	         access_revoked_at IS NULL AND status = 'canceled' AND expired_at IS NULL AND current_period_end <= coalesce(CAST(@now AS timestamptz), now())
	           AND greatest(current_period_end, updated_at) > coalesce(CAST(@now AS timestamptz), now()) - make_interval(secs => @lag) AS lagging
	    FROM subscriptions WHERE ` + userScope + `
	), expected AS (
	  SELECT user_id,
	         (array_agg(tier ORDER BY rank DESC NULLS LAST) FILTER (WHERE grants))[1] AS tier,
	         coalesce(array_agg(tier) FILTER (WHERE lagging), '{}') AS lagging,
	         string_agg(paddle_subscription_id || ' ' || tier || ' ' || status || CASE WHEN grants THEN ' (grants)' ELSE '' END,
	                    ', ' ORDER BY created_at) AS subs
	    FROM subs GROUP BY user_id
	)
	SELECT u.user_id::text AS subject,
	       format('on %s; the subscriptions say %s (%s)', u.tier, coalesce(e.tier, @free), coalesce(e.subs, 'none')) AS detail
	  FROM (` + account.TierView + `) u LEFT JOIN expected e ON e.user_id = u.user_id
	 WHERE NOT u.deleted AND ` + scoped("u.user_id") + `
	   AND u.tier <> coalesce(e.tier, @free) AND NOT (u.tier = ANY(coalesce(e.lagging, '{}')))`

// monthQuery finds a subscription month granted twice (two base keys for months less than monthsApart
// apart, which the ledger's unique key cannot see) and a base grant that went to another user than the
// subscription's.
var monthQuery = `WITH g AS (
	  SELECT g.id, g.user_id, g.job_id, m[1] AS sub, CAST(m[2] AS timestamptz) AS month
	    FROM (` + credits.GrantView + `) g, regexp_match(g.job_id, @base) m
	   WHERE starts_with(g.job_id, 'grant:') AND ` + scoped("g.user_id") + `
	), w AS (
	  SELECT g.*, lag(month) OVER o AS prev_month, lag(job_id) OVER o AS prev_key, lag(user_id) OVER o AS prev_user
	    FROM g WINDOW o AS (PARTITION BY sub ORDER BY month, id)
	)
	SELECT job_id AS subject, format('one month granted twice: %s (user %s) and %s (user %s)', prev_key, prev_user, job_id, user_id) AS detail
	  FROM w WHERE month - prev_month < make_interval(secs => @apart)
	UNION ALL
	SELECT g.job_id, format('went to user %s; subscription %s is user %s''s', g.user_id, g.sub, s.user_id)
	  FROM g JOIN subscriptions s ON s.paddle_subscription_id = g.sub
	 WHERE s.user_id <> g.user_id`

// scoped is userScope on a qualified column.
func scoped(col string) string {
	return `(CAST(@user AS uuid) IS NULL OR ` + col + ` = CAST(@user AS uuid))`
}
