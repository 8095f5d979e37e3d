-- U1's baseline: one usage event of a random bench user (docs/benchmarks.md).
-- Generated from the server's statements by usage's TestBenchScripts (-update); do not edit.
\set ub random(0, :stride - 1)
\set rb random(1, 9000000000)
\startpipeline
BEGIN;
SELECT coalesce(array_agg(u.id), '{}'), coalesce(array_agg(u.current_tier), '{}'),
       coalesce(array_agg((u.deleted_at IS NOT NULL)::int), '{}'),
       coalesce(array_agg(coalesce((extract(epoch FROM s.current_period_start) * 1000000)::bigint, 0)), '{}')
  FROM users u LEFT JOIN LATERAL (
    SELECT x.current_period_start FROM subscriptions x
     WHERE x.user_id = u.id AND x.tier = u.current_tier AND x.current_period_start IS NOT NULL
       AND (x.status = ANY(ARRAY['trialing', 'active', 'past_due', 'paused']) OR (x.status = 'canceled' AND x.current_period_end > now()))
     ORDER BY x.current_period_start DESC LIMIT 1) s ON true
 WHERE u.id = md5('bench-user-' || (1 + 0 * :stride + (:ub + 37 * 0) % :stride))::uuid;
\endpipeline
\startpipeline
WITH ins AS (
  INSERT INTO usage_claims (user_id, key, event_id, feature, kind, quantity, period_start, occurred_at, created_at)
  SELECT c.user_id, c.key, c.event_id, c.feature, c.kind, c.quantity, c.period_start, c.occurred_at, now()
    FROM unnest(ARRAY(SELECT md5('bench-user-' || (1 + i * :stride + (:ub + 37 * i) % :stride))::uuid FROM generate_series(0, 0) AS i ORDER BY i)::uuid[]::uuid[], ARRAY(SELECT ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + i)) FROM generate_series(0, 0) AS i ORDER BY i)::text[]::text[], ARRAY(SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + i))::uuid FROM generate_series(0, 0) AS i ORDER BY i)::uuid[]::uuid[], ARRAY(SELECT 'api_calls' FROM generate_series(0, 0) AS i ORDER BY i)::text[]::text[], ARRAY(SELECT 'usage' FROM generate_series(0, 0) AS i ORDER BY i)::text[]::text[], ARRAY(SELECT 1 FROM generate_series(0, 0) AS i ORDER BY i)::bigint[]::bigint[], ARRAY(SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') FROM generate_series(0, 0) AS i ORDER BY i)::timestamptz[]::timestamptz[], ARRAY(SELECT now() FROM generate_series(0, 0) AS i ORDER BY i)::timestamptz[]::timestamptz[])
         WITH ORDINALITY AS c(user_id, key, event_id, feature, kind, quantity, period_start, occurred_at, n)
   ORDER BY c.n
  ON CONFLICT (user_id, key) DO NOTHING
  RETURNING event_id)
SELECT coalesce(array_agg(event_id), '{}') FROM ins;
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 0 * :stride + (:ub + 37 * 0) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 0)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 0))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 0 * :stride + (:ub + 37 * 0) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 0 * :stride + (:ub + 37 * 0) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 0)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 0))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 0))::uuid, md5('bench-user-' || (1 + 0 * :stride + (:ub + 37 * 0) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 0)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 0 * :stride + (:ub + 37 * 0) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 0 * :stride + (:ub + 37 * 0) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 0)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 0 * :stride + (:ub + 37 * 0) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
COMMIT;
\endpipeline
