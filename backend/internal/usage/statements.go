package usage

// The statements of recording. An event's transaction runs, in this order (so concurrent transactions
// take locks in one order and cannot deadlock each other):
//
//  1. claimSQL: every event's claim, sorted by (user, key), ON CONFLICT DO NOTHING. A copy of an event
//     that another transaction is recording waits here until that one ends: if it committed, the copy
//     finds its claim; if it rolled back (or was refused), the copy claims the key itself.
//  2. counterSQL, per event, sorted by (user, feature, month): if the claim is ours (its event id), the
//     counter's conditional upsert (the row lock and the block check in one statement), then the event
//     row and any threshold crossed; if the upsert refused, the claim is deleted in the same statement, so
//     a refusal leaves nothing behind. A copy reads the original claim instead: in READ COMMITTED each
//     statement sees what committed before it began, including the claim statement 1 waited for.
//  3. credits features, per event sorted by (user, key): the ledger's charge (its balance row lock),
//     then counterSQL without a limit, or, when the balance does not cover it, the claim's deletion.
//
// Statements 1 and 2 depend on nothing Go computes in between, so in a pipelined transaction they go
// out in one round trip with the BEGIN (db.QueryRows), whatever the number of events.

// claimSQL inserts the claims and returns the event ids it inserted (the events that are ours).
// Parameters: users, keys, event ids, features, kinds, quantities, months, occurred_at, now.
const claimSQL = `WITH ins AS (
  INSERT INTO usage_claims (user_id, key, event_id, feature, kind, quantity, period_start, occurred_at, created_at)
  SELECT c.user_id, c.key, c.event_id, c.feature, c.kind, c.quantity, c.period_start, c.occurred_at, $9
    FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::bigint[], $7::timestamptz[], $8::timestamptz[])
         WITH ORDINALITY AS c(user_id, key, event_id, feature, kind, quantity, period_start, occurred_at, n)
   ORDER BY c.n
  ON CONFLICT (user_id, key) DO NOTHING
  RETURNING event_id)
SELECT coalesce(array_agg(event_id), '{}') FROM ins`

// counterSQL records one claimed event on its counter (see above). Parameters: user, feature, month
// start, month end, quantity, limit (NULL: none), block, key, event id, occurred_at, now. It returns
// whether the claim is ours, the counter after the event (-1: refused), the counter as it stands, the
// thresholds crossed, and for a copy the original claim's event id, feature and quantity.
const counterSQL = `WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = $1 AND key = $8 AND event_id = $9
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT $1, $2, $3, $4, $5::bigint, $6::bigint, $11 FROM mine WHERE NOT $7::boolean OR $5::bigint <= $6::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT $7::boolean OR c.used + EXCLUDED.used <= $6::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = $1 AND key = $8 AND event_id = $9 AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT $9, $1, $2, 'usage', $5::bigint, $8, $3, $10, $11 FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT $1, $2, $3, t.name, b.used, $6::bigint, $11
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE $6::bigint > 0 AND (b.used - $5::bigint) * 100 < $6::bigint * t.pct AND b.used * 100 >= $6::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = $1 AND key = $8 AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = $1 AND feature = $2 AND period_start = $3), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0)`

// origSQL reads a claim that is not ours (a credits feature's copy). Parameters: user, key.
const origSQL = `SELECT event_id, feature, quantity FROM usage_claims WHERE user_id = $1 AND key = $2`

// unclaimSQL deletes our claim of a refused event. Parameters: user, key, event id.
const unclaimSQL = `DELETE FROM usage_claims WHERE user_id = $1 AND key = $2 AND event_id = $3`

// lowBalanceSQL records that a charge left the balance below the tier's low_balance, once per user and
// usage month. Parameters: user, month start, balance, low_balance, now.
const lowBalanceSQL = `INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
VALUES ($1, '', $2, 'low_balance', $3, $4, $5)
ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING RETURNING threshold`

// gaugeSQL sets a claimed gauge: the newest set by occurred_at wins, so sets arriving out of order end
// at the latest value. Every set is an event (history), whether it won or not. Parameters: user, feature,
// month start, value, key, event id, occurred_at, now.
const gaugeSQL = `WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = $1 AND key = $5 AND event_id = $6
), g AS (
  INSERT INTO usage_gauges AS g (user_id, feature, value, set_at, updated_at)
  SELECT $1, $2, $4::bigint, $7, $8 FROM mine
  ON CONFLICT (user_id, feature) DO UPDATE SET value = EXCLUDED.value, set_at = EXCLUDED.set_at, updated_at = EXCLUDED.updated_at
   WHERE g.set_at <= EXCLUDED.set_at
  RETURNING g.value
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT $6, $1, $2, 'gauge', $4::bigint, $5, $3, $7, $8 FROM mine
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = $1 AND key = $5 AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine),
       coalesce((SELECT value FROM g), (SELECT value FROM usage_gauges WHERE user_id = $1 AND feature = $2), 0),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0)`
