-- U2's baseline: a batch of 100 usage events of random bench users (docs/benchmarks.md).
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
 WHERE u.id = ANY(ARRAY(SELECT md5('bench-user-' || (1 + i * :stride + (:ub + 37 * i) % :stride))::uuid FROM generate_series(0, 99) AS i ORDER BY i)::uuid[]);
\endpipeline
\startpipeline
WITH ins AS (
  INSERT INTO usage_claims (user_id, key, event_id, feature, kind, quantity, period_start, occurred_at, created_at)
  SELECT c.user_id, c.key, c.event_id, c.feature, c.kind, c.quantity, c.period_start, c.occurred_at, now()
    FROM unnest(ARRAY(SELECT md5('bench-user-' || (1 + i * :stride + (:ub + 37 * i) % :stride))::uuid FROM generate_series(0, 99) AS i ORDER BY i)::uuid[]::uuid[], ARRAY(SELECT ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + i)) FROM generate_series(0, 99) AS i ORDER BY i)::text[]::text[], ARRAY(SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + i))::uuid FROM generate_series(0, 99) AS i ORDER BY i)::uuid[]::uuid[], ARRAY(SELECT 'api_calls' FROM generate_series(0, 99) AS i ORDER BY i)::text[]::text[], ARRAY(SELECT 'usage' FROM generate_series(0, 99) AS i ORDER BY i)::text[]::text[], ARRAY(SELECT 1 FROM generate_series(0, 99) AS i ORDER BY i)::bigint[]::bigint[], ARRAY(SELECT (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') FROM generate_series(0, 99) AS i ORDER BY i)::timestamptz[]::timestamptz[], ARRAY(SELECT now() FROM generate_series(0, 99) AS i ORDER BY i)::timestamptz[]::timestamptz[])
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
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 1 * :stride + (:ub + 37 * 1) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 1)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 1))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 1 * :stride + (:ub + 37 * 1) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 1 * :stride + (:ub + 37 * 1) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 1)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 1))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 1))::uuid, md5('bench-user-' || (1 + 1 * :stride + (:ub + 37 * 1) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 1)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 1 * :stride + (:ub + 37 * 1) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 1 * :stride + (:ub + 37 * 1) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 1)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 1 * :stride + (:ub + 37 * 1) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 2 * :stride + (:ub + 37 * 2) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 2)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 2))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 2 * :stride + (:ub + 37 * 2) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 2 * :stride + (:ub + 37 * 2) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 2)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 2))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 2))::uuid, md5('bench-user-' || (1 + 2 * :stride + (:ub + 37 * 2) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 2)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 2 * :stride + (:ub + 37 * 2) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 2 * :stride + (:ub + 37 * 2) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 2)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 2 * :stride + (:ub + 37 * 2) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 3 * :stride + (:ub + 37 * 3) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 3)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 3))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 3 * :stride + (:ub + 37 * 3) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 3 * :stride + (:ub + 37 * 3) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 3)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 3))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 3))::uuid, md5('bench-user-' || (1 + 3 * :stride + (:ub + 37 * 3) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 3)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 3 * :stride + (:ub + 37 * 3) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 3 * :stride + (:ub + 37 * 3) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 3)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 3 * :stride + (:ub + 37 * 3) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 4 * :stride + (:ub + 37 * 4) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 4)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 4))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 4 * :stride + (:ub + 37 * 4) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 4 * :stride + (:ub + 37 * 4) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 4)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 4))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 4))::uuid, md5('bench-user-' || (1 + 4 * :stride + (:ub + 37 * 4) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 4)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 4 * :stride + (:ub + 37 * 4) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 4 * :stride + (:ub + 37 * 4) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 4)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 4 * :stride + (:ub + 37 * 4) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 5 * :stride + (:ub + 37 * 5) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 5)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 5))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 5 * :stride + (:ub + 37 * 5) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 5 * :stride + (:ub + 37 * 5) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 5)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 5))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 5))::uuid, md5('bench-user-' || (1 + 5 * :stride + (:ub + 37 * 5) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 5)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 5 * :stride + (:ub + 37 * 5) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 5 * :stride + (:ub + 37 * 5) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 5)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 5 * :stride + (:ub + 37 * 5) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 6 * :stride + (:ub + 37 * 6) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 6)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 6))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 6 * :stride + (:ub + 37 * 6) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 6 * :stride + (:ub + 37 * 6) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 6)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 6))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 6))::uuid, md5('bench-user-' || (1 + 6 * :stride + (:ub + 37 * 6) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 6)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 6 * :stride + (:ub + 37 * 6) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 6 * :stride + (:ub + 37 * 6) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 6)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 6 * :stride + (:ub + 37 * 6) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 7 * :stride + (:ub + 37 * 7) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 7)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 7))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 7 * :stride + (:ub + 37 * 7) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 7 * :stride + (:ub + 37 * 7) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 7)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 7))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 7))::uuid, md5('bench-user-' || (1 + 7 * :stride + (:ub + 37 * 7) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 7)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 7 * :stride + (:ub + 37 * 7) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 7 * :stride + (:ub + 37 * 7) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 7)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 7 * :stride + (:ub + 37 * 7) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 8 * :stride + (:ub + 37 * 8) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 8)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 8))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 8 * :stride + (:ub + 37 * 8) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 8 * :stride + (:ub + 37 * 8) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 8)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 8))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 8))::uuid, md5('bench-user-' || (1 + 8 * :stride + (:ub + 37 * 8) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 8)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 8 * :stride + (:ub + 37 * 8) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 8 * :stride + (:ub + 37 * 8) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 8)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 8 * :stride + (:ub + 37 * 8) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 9 * :stride + (:ub + 37 * 9) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 9)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 9))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 9 * :stride + (:ub + 37 * 9) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 9 * :stride + (:ub + 37 * 9) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 9)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 9))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 9))::uuid, md5('bench-user-' || (1 + 9 * :stride + (:ub + 37 * 9) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 9)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 9 * :stride + (:ub + 37 * 9) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 9 * :stride + (:ub + 37 * 9) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 9)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 9 * :stride + (:ub + 37 * 9) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 10 * :stride + (:ub + 37 * 10) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 10)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 10))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 10 * :stride + (:ub + 37 * 10) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 10 * :stride + (:ub + 37 * 10) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 10)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 10))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 10))::uuid, md5('bench-user-' || (1 + 10 * :stride + (:ub + 37 * 10) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 10)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 10 * :stride + (:ub + 37 * 10) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 10 * :stride + (:ub + 37 * 10) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 10)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 10 * :stride + (:ub + 37 * 10) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 11 * :stride + (:ub + 37 * 11) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 11)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 11))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 11 * :stride + (:ub + 37 * 11) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 11 * :stride + (:ub + 37 * 11) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 11)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 11))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 11))::uuid, md5('bench-user-' || (1 + 11 * :stride + (:ub + 37 * 11) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 11)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 11 * :stride + (:ub + 37 * 11) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 11 * :stride + (:ub + 37 * 11) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 11)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 11 * :stride + (:ub + 37 * 11) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 12 * :stride + (:ub + 37 * 12) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 12)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 12))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 12 * :stride + (:ub + 37 * 12) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 12 * :stride + (:ub + 37 * 12) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 12)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 12))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 12))::uuid, md5('bench-user-' || (1 + 12 * :stride + (:ub + 37 * 12) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 12)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 12 * :stride + (:ub + 37 * 12) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 12 * :stride + (:ub + 37 * 12) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 12)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 12 * :stride + (:ub + 37 * 12) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 13 * :stride + (:ub + 37 * 13) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 13)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 13))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 13 * :stride + (:ub + 37 * 13) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 13 * :stride + (:ub + 37 * 13) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 13)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 13))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 13))::uuid, md5('bench-user-' || (1 + 13 * :stride + (:ub + 37 * 13) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 13)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 13 * :stride + (:ub + 37 * 13) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 13 * :stride + (:ub + 37 * 13) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 13)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 13 * :stride + (:ub + 37 * 13) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 14 * :stride + (:ub + 37 * 14) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 14)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 14))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 14 * :stride + (:ub + 37 * 14) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 14 * :stride + (:ub + 37 * 14) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 14)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 14))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 14))::uuid, md5('bench-user-' || (1 + 14 * :stride + (:ub + 37 * 14) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 14)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 14 * :stride + (:ub + 37 * 14) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 14 * :stride + (:ub + 37 * 14) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 14)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 14 * :stride + (:ub + 37 * 14) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 15 * :stride + (:ub + 37 * 15) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 15)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 15))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 15 * :stride + (:ub + 37 * 15) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 15 * :stride + (:ub + 37 * 15) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 15)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 15))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 15))::uuid, md5('bench-user-' || (1 + 15 * :stride + (:ub + 37 * 15) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 15)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 15 * :stride + (:ub + 37 * 15) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 15 * :stride + (:ub + 37 * 15) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 15)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 15 * :stride + (:ub + 37 * 15) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 16 * :stride + (:ub + 37 * 16) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 16)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 16))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 16 * :stride + (:ub + 37 * 16) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 16 * :stride + (:ub + 37 * 16) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 16)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 16))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 16))::uuid, md5('bench-user-' || (1 + 16 * :stride + (:ub + 37 * 16) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 16)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 16 * :stride + (:ub + 37 * 16) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 16 * :stride + (:ub + 37 * 16) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 16)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 16 * :stride + (:ub + 37 * 16) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 17 * :stride + (:ub + 37 * 17) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 17)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 17))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 17 * :stride + (:ub + 37 * 17) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 17 * :stride + (:ub + 37 * 17) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 17)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 17))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 17))::uuid, md5('bench-user-' || (1 + 17 * :stride + (:ub + 37 * 17) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 17)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 17 * :stride + (:ub + 37 * 17) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 17 * :stride + (:ub + 37 * 17) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 17)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 17 * :stride + (:ub + 37 * 17) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 18 * :stride + (:ub + 37 * 18) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 18)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 18))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 18 * :stride + (:ub + 37 * 18) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 18 * :stride + (:ub + 37 * 18) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 18)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 18))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 18))::uuid, md5('bench-user-' || (1 + 18 * :stride + (:ub + 37 * 18) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 18)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 18 * :stride + (:ub + 37 * 18) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 18 * :stride + (:ub + 37 * 18) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 18)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 18 * :stride + (:ub + 37 * 18) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 19 * :stride + (:ub + 37 * 19) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 19)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 19))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 19 * :stride + (:ub + 37 * 19) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 19 * :stride + (:ub + 37 * 19) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 19)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 19))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 19))::uuid, md5('bench-user-' || (1 + 19 * :stride + (:ub + 37 * 19) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 19)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 19 * :stride + (:ub + 37 * 19) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 19 * :stride + (:ub + 37 * 19) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 19)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 19 * :stride + (:ub + 37 * 19) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 20 * :stride + (:ub + 37 * 20) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 20)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 20))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 20 * :stride + (:ub + 37 * 20) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 20 * :stride + (:ub + 37 * 20) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 20)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 20))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 20))::uuid, md5('bench-user-' || (1 + 20 * :stride + (:ub + 37 * 20) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 20)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 20 * :stride + (:ub + 37 * 20) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 20 * :stride + (:ub + 37 * 20) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 20)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 20 * :stride + (:ub + 37 * 20) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 21 * :stride + (:ub + 37 * 21) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 21)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 21))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 21 * :stride + (:ub + 37 * 21) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 21 * :stride + (:ub + 37 * 21) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 21)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 21))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 21))::uuid, md5('bench-user-' || (1 + 21 * :stride + (:ub + 37 * 21) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 21)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 21 * :stride + (:ub + 37 * 21) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 21 * :stride + (:ub + 37 * 21) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 21)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 21 * :stride + (:ub + 37 * 21) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 22 * :stride + (:ub + 37 * 22) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 22)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 22))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 22 * :stride + (:ub + 37 * 22) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 22 * :stride + (:ub + 37 * 22) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 22)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 22))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 22))::uuid, md5('bench-user-' || (1 + 22 * :stride + (:ub + 37 * 22) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 22)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 22 * :stride + (:ub + 37 * 22) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 22 * :stride + (:ub + 37 * 22) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 22)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 22 * :stride + (:ub + 37 * 22) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 23 * :stride + (:ub + 37 * 23) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 23)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 23))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 23 * :stride + (:ub + 37 * 23) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 23 * :stride + (:ub + 37 * 23) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 23)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 23))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 23))::uuid, md5('bench-user-' || (1 + 23 * :stride + (:ub + 37 * 23) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 23)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 23 * :stride + (:ub + 37 * 23) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 23 * :stride + (:ub + 37 * 23) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 23)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 23 * :stride + (:ub + 37 * 23) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 24 * :stride + (:ub + 37 * 24) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 24)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 24))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 24 * :stride + (:ub + 37 * 24) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 24 * :stride + (:ub + 37 * 24) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 24)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 24))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 24))::uuid, md5('bench-user-' || (1 + 24 * :stride + (:ub + 37 * 24) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 24)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 24 * :stride + (:ub + 37 * 24) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 24 * :stride + (:ub + 37 * 24) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 24)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 24 * :stride + (:ub + 37 * 24) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 25 * :stride + (:ub + 37 * 25) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 25)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 25))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 25 * :stride + (:ub + 37 * 25) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 25 * :stride + (:ub + 37 * 25) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 25)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 25))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 25))::uuid, md5('bench-user-' || (1 + 25 * :stride + (:ub + 37 * 25) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 25)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 25 * :stride + (:ub + 37 * 25) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 25 * :stride + (:ub + 37 * 25) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 25)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 25 * :stride + (:ub + 37 * 25) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 26 * :stride + (:ub + 37 * 26) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 26)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 26))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 26 * :stride + (:ub + 37 * 26) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 26 * :stride + (:ub + 37 * 26) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 26)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 26))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 26))::uuid, md5('bench-user-' || (1 + 26 * :stride + (:ub + 37 * 26) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 26)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 26 * :stride + (:ub + 37 * 26) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 26 * :stride + (:ub + 37 * 26) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 26)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 26 * :stride + (:ub + 37 * 26) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 27 * :stride + (:ub + 37 * 27) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 27)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 27))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 27 * :stride + (:ub + 37 * 27) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 27 * :stride + (:ub + 37 * 27) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 27)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 27))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 27))::uuid, md5('bench-user-' || (1 + 27 * :stride + (:ub + 37 * 27) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 27)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 27 * :stride + (:ub + 37 * 27) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 27 * :stride + (:ub + 37 * 27) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 27)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 27 * :stride + (:ub + 37 * 27) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 28 * :stride + (:ub + 37 * 28) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 28)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 28))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 28 * :stride + (:ub + 37 * 28) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 28 * :stride + (:ub + 37 * 28) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 28)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 28))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 28))::uuid, md5('bench-user-' || (1 + 28 * :stride + (:ub + 37 * 28) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 28)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 28 * :stride + (:ub + 37 * 28) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 28 * :stride + (:ub + 37 * 28) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 28)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 28 * :stride + (:ub + 37 * 28) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 29 * :stride + (:ub + 37 * 29) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 29)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 29))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 29 * :stride + (:ub + 37 * 29) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 29 * :stride + (:ub + 37 * 29) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 29)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 29))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 29))::uuid, md5('bench-user-' || (1 + 29 * :stride + (:ub + 37 * 29) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 29)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 29 * :stride + (:ub + 37 * 29) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 29 * :stride + (:ub + 37 * 29) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 29)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 29 * :stride + (:ub + 37 * 29) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 30 * :stride + (:ub + 37 * 30) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 30)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 30))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 30 * :stride + (:ub + 37 * 30) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 30 * :stride + (:ub + 37 * 30) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 30)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 30))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 30))::uuid, md5('bench-user-' || (1 + 30 * :stride + (:ub + 37 * 30) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 30)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 30 * :stride + (:ub + 37 * 30) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 30 * :stride + (:ub + 37 * 30) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 30)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 30 * :stride + (:ub + 37 * 30) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 31 * :stride + (:ub + 37 * 31) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 31)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 31))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 31 * :stride + (:ub + 37 * 31) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 31 * :stride + (:ub + 37 * 31) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 31)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 31))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 31))::uuid, md5('bench-user-' || (1 + 31 * :stride + (:ub + 37 * 31) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 31)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 31 * :stride + (:ub + 37 * 31) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 31 * :stride + (:ub + 37 * 31) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 31)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 31 * :stride + (:ub + 37 * 31) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 32 * :stride + (:ub + 37 * 32) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 32)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 32))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 32 * :stride + (:ub + 37 * 32) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 32 * :stride + (:ub + 37 * 32) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 32)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 32))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 32))::uuid, md5('bench-user-' || (1 + 32 * :stride + (:ub + 37 * 32) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 32)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 32 * :stride + (:ub + 37 * 32) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 32 * :stride + (:ub + 37 * 32) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 32)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 32 * :stride + (:ub + 37 * 32) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 33 * :stride + (:ub + 37 * 33) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 33)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 33))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 33 * :stride + (:ub + 37 * 33) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 33 * :stride + (:ub + 37 * 33) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 33)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 33))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 33))::uuid, md5('bench-user-' || (1 + 33 * :stride + (:ub + 37 * 33) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 33)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 33 * :stride + (:ub + 37 * 33) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 33 * :stride + (:ub + 37 * 33) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 33)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 33 * :stride + (:ub + 37 * 33) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 34 * :stride + (:ub + 37 * 34) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 34)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 34))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 34 * :stride + (:ub + 37 * 34) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 34 * :stride + (:ub + 37 * 34) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 34)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 34))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 34))::uuid, md5('bench-user-' || (1 + 34 * :stride + (:ub + 37 * 34) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 34)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 34 * :stride + (:ub + 37 * 34) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 34 * :stride + (:ub + 37 * 34) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 34)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 34 * :stride + (:ub + 37 * 34) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 35 * :stride + (:ub + 37 * 35) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 35)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 35))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 35 * :stride + (:ub + 37 * 35) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 35 * :stride + (:ub + 37 * 35) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 35)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 35))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 35))::uuid, md5('bench-user-' || (1 + 35 * :stride + (:ub + 37 * 35) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 35)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 35 * :stride + (:ub + 37 * 35) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 35 * :stride + (:ub + 37 * 35) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 35)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 35 * :stride + (:ub + 37 * 35) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 36 * :stride + (:ub + 37 * 36) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 36)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 36))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 36 * :stride + (:ub + 37 * 36) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 36 * :stride + (:ub + 37 * 36) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 36)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 36))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 36))::uuid, md5('bench-user-' || (1 + 36 * :stride + (:ub + 37 * 36) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 36)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 36 * :stride + (:ub + 37 * 36) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 36 * :stride + (:ub + 37 * 36) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 36)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 36 * :stride + (:ub + 37 * 36) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 37 * :stride + (:ub + 37 * 37) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 37)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 37))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 37 * :stride + (:ub + 37 * 37) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 37 * :stride + (:ub + 37 * 37) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 37)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 37))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 37))::uuid, md5('bench-user-' || (1 + 37 * :stride + (:ub + 37 * 37) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 37)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 37 * :stride + (:ub + 37 * 37) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 37 * :stride + (:ub + 37 * 37) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 37)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 37 * :stride + (:ub + 37 * 37) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 38 * :stride + (:ub + 37 * 38) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 38)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 38))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 38 * :stride + (:ub + 37 * 38) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 38 * :stride + (:ub + 37 * 38) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 38)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 38))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 38))::uuid, md5('bench-user-' || (1 + 38 * :stride + (:ub + 37 * 38) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 38)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 38 * :stride + (:ub + 37 * 38) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 38 * :stride + (:ub + 37 * 38) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 38)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 38 * :stride + (:ub + 37 * 38) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 39 * :stride + (:ub + 37 * 39) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 39)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 39))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 39 * :stride + (:ub + 37 * 39) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 39 * :stride + (:ub + 37 * 39) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 39)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 39))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 39))::uuid, md5('bench-user-' || (1 + 39 * :stride + (:ub + 37 * 39) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 39)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 39 * :stride + (:ub + 37 * 39) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 39 * :stride + (:ub + 37 * 39) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 39)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 39 * :stride + (:ub + 37 * 39) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 40 * :stride + (:ub + 37 * 40) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 40)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 40))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 40 * :stride + (:ub + 37 * 40) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 40 * :stride + (:ub + 37 * 40) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 40)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 40))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 40))::uuid, md5('bench-user-' || (1 + 40 * :stride + (:ub + 37 * 40) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 40)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 40 * :stride + (:ub + 37 * 40) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 40 * :stride + (:ub + 37 * 40) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 40)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 40 * :stride + (:ub + 37 * 40) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 41 * :stride + (:ub + 37 * 41) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 41)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 41))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 41 * :stride + (:ub + 37 * 41) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 41 * :stride + (:ub + 37 * 41) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 41)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 41))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 41))::uuid, md5('bench-user-' || (1 + 41 * :stride + (:ub + 37 * 41) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 41)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 41 * :stride + (:ub + 37 * 41) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 41 * :stride + (:ub + 37 * 41) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 41)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 41 * :stride + (:ub + 37 * 41) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 42 * :stride + (:ub + 37 * 42) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 42)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 42))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 42 * :stride + (:ub + 37 * 42) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 42 * :stride + (:ub + 37 * 42) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 42)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 42))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 42))::uuid, md5('bench-user-' || (1 + 42 * :stride + (:ub + 37 * 42) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 42)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 42 * :stride + (:ub + 37 * 42) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 42 * :stride + (:ub + 37 * 42) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 42)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 42 * :stride + (:ub + 37 * 42) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 43 * :stride + (:ub + 37 * 43) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 43)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 43))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 43 * :stride + (:ub + 37 * 43) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 43 * :stride + (:ub + 37 * 43) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 43)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 43))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 43))::uuid, md5('bench-user-' || (1 + 43 * :stride + (:ub + 37 * 43) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 43)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 43 * :stride + (:ub + 37 * 43) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 43 * :stride + (:ub + 37 * 43) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 43)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 43 * :stride + (:ub + 37 * 43) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 44 * :stride + (:ub + 37 * 44) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 44)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 44))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 44 * :stride + (:ub + 37 * 44) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 44 * :stride + (:ub + 37 * 44) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 44)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 44))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 44))::uuid, md5('bench-user-' || (1 + 44 * :stride + (:ub + 37 * 44) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 44)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 44 * :stride + (:ub + 37 * 44) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 44 * :stride + (:ub + 37 * 44) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 44)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 44 * :stride + (:ub + 37 * 44) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 45 * :stride + (:ub + 37 * 45) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 45)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 45))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 45 * :stride + (:ub + 37 * 45) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 45 * :stride + (:ub + 37 * 45) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 45)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 45))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 45))::uuid, md5('bench-user-' || (1 + 45 * :stride + (:ub + 37 * 45) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 45)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 45 * :stride + (:ub + 37 * 45) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 45 * :stride + (:ub + 37 * 45) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 45)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 45 * :stride + (:ub + 37 * 45) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 46 * :stride + (:ub + 37 * 46) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 46)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 46))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 46 * :stride + (:ub + 37 * 46) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 46 * :stride + (:ub + 37 * 46) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 46)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 46))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 46))::uuid, md5('bench-user-' || (1 + 46 * :stride + (:ub + 37 * 46) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 46)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 46 * :stride + (:ub + 37 * 46) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 46 * :stride + (:ub + 37 * 46) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 46)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 46 * :stride + (:ub + 37 * 46) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 47 * :stride + (:ub + 37 * 47) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 47)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 47))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 47 * :stride + (:ub + 37 * 47) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 47 * :stride + (:ub + 37 * 47) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 47)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 47))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 47))::uuid, md5('bench-user-' || (1 + 47 * :stride + (:ub + 37 * 47) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 47)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 47 * :stride + (:ub + 37 * 47) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 47 * :stride + (:ub + 37 * 47) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 47)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 47 * :stride + (:ub + 37 * 47) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 48 * :stride + (:ub + 37 * 48) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 48)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 48))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 48 * :stride + (:ub + 37 * 48) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 48 * :stride + (:ub + 37 * 48) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 48)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 48))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 48))::uuid, md5('bench-user-' || (1 + 48 * :stride + (:ub + 37 * 48) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 48)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 48 * :stride + (:ub + 37 * 48) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 48 * :stride + (:ub + 37 * 48) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 48)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 48 * :stride + (:ub + 37 * 48) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 49 * :stride + (:ub + 37 * 49) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 49)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 49))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 49 * :stride + (:ub + 37 * 49) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 49 * :stride + (:ub + 37 * 49) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 49)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 49))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 49))::uuid, md5('bench-user-' || (1 + 49 * :stride + (:ub + 37 * 49) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 49)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 49 * :stride + (:ub + 37 * 49) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 49 * :stride + (:ub + 37 * 49) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 49)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 49 * :stride + (:ub + 37 * 49) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 50 * :stride + (:ub + 37 * 50) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 50)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 50))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 50 * :stride + (:ub + 37 * 50) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 50 * :stride + (:ub + 37 * 50) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 50)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 50))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 50))::uuid, md5('bench-user-' || (1 + 50 * :stride + (:ub + 37 * 50) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 50)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 50 * :stride + (:ub + 37 * 50) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 50 * :stride + (:ub + 37 * 50) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 50)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 50 * :stride + (:ub + 37 * 50) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 51 * :stride + (:ub + 37 * 51) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 51)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 51))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 51 * :stride + (:ub + 37 * 51) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 51 * :stride + (:ub + 37 * 51) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 51)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 51))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 51))::uuid, md5('bench-user-' || (1 + 51 * :stride + (:ub + 37 * 51) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 51)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 51 * :stride + (:ub + 37 * 51) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 51 * :stride + (:ub + 37 * 51) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 51)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 51 * :stride + (:ub + 37 * 51) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 52 * :stride + (:ub + 37 * 52) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 52)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 52))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 52 * :stride + (:ub + 37 * 52) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 52 * :stride + (:ub + 37 * 52) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 52)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 52))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 52))::uuid, md5('bench-user-' || (1 + 52 * :stride + (:ub + 37 * 52) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 52)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 52 * :stride + (:ub + 37 * 52) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 52 * :stride + (:ub + 37 * 52) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 52)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 52 * :stride + (:ub + 37 * 52) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 53 * :stride + (:ub + 37 * 53) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 53)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 53))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 53 * :stride + (:ub + 37 * 53) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 53 * :stride + (:ub + 37 * 53) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 53)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 53))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 53))::uuid, md5('bench-user-' || (1 + 53 * :stride + (:ub + 37 * 53) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 53)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 53 * :stride + (:ub + 37 * 53) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 53 * :stride + (:ub + 37 * 53) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 53)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 53 * :stride + (:ub + 37 * 53) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 54 * :stride + (:ub + 37 * 54) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 54)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 54))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 54 * :stride + (:ub + 37 * 54) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 54 * :stride + (:ub + 37 * 54) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 54)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 54))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 54))::uuid, md5('bench-user-' || (1 + 54 * :stride + (:ub + 37 * 54) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 54)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 54 * :stride + (:ub + 37 * 54) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 54 * :stride + (:ub + 37 * 54) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 54)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 54 * :stride + (:ub + 37 * 54) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 55 * :stride + (:ub + 37 * 55) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 55)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 55))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 55 * :stride + (:ub + 37 * 55) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 55 * :stride + (:ub + 37 * 55) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 55)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 55))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 55))::uuid, md5('bench-user-' || (1 + 55 * :stride + (:ub + 37 * 55) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 55)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 55 * :stride + (:ub + 37 * 55) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 55 * :stride + (:ub + 37 * 55) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 55)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 55 * :stride + (:ub + 37 * 55) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 56 * :stride + (:ub + 37 * 56) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 56)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 56))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 56 * :stride + (:ub + 37 * 56) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 56 * :stride + (:ub + 37 * 56) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 56)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 56))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 56))::uuid, md5('bench-user-' || (1 + 56 * :stride + (:ub + 37 * 56) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 56)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 56 * :stride + (:ub + 37 * 56) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 56 * :stride + (:ub + 37 * 56) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 56)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 56 * :stride + (:ub + 37 * 56) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 57 * :stride + (:ub + 37 * 57) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 57)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 57))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 57 * :stride + (:ub + 37 * 57) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 57 * :stride + (:ub + 37 * 57) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 57)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 57))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 57))::uuid, md5('bench-user-' || (1 + 57 * :stride + (:ub + 37 * 57) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 57)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 57 * :stride + (:ub + 37 * 57) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 57 * :stride + (:ub + 37 * 57) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 57)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 57 * :stride + (:ub + 37 * 57) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 58 * :stride + (:ub + 37 * 58) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 58)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 58))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 58 * :stride + (:ub + 37 * 58) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 58 * :stride + (:ub + 37 * 58) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 58)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 58))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 58))::uuid, md5('bench-user-' || (1 + 58 * :stride + (:ub + 37 * 58) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 58)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 58 * :stride + (:ub + 37 * 58) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 58 * :stride + (:ub + 37 * 58) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 58)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 58 * :stride + (:ub + 37 * 58) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 59 * :stride + (:ub + 37 * 59) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 59)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 59))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 59 * :stride + (:ub + 37 * 59) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 59 * :stride + (:ub + 37 * 59) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 59)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 59))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 59))::uuid, md5('bench-user-' || (1 + 59 * :stride + (:ub + 37 * 59) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 59)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 59 * :stride + (:ub + 37 * 59) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 59 * :stride + (:ub + 37 * 59) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 59)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 59 * :stride + (:ub + 37 * 59) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 60 * :stride + (:ub + 37 * 60) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 60)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 60))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 60 * :stride + (:ub + 37 * 60) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 60 * :stride + (:ub + 37 * 60) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 60)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 60))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 60))::uuid, md5('bench-user-' || (1 + 60 * :stride + (:ub + 37 * 60) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 60)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 60 * :stride + (:ub + 37 * 60) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 60 * :stride + (:ub + 37 * 60) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 60)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 60 * :stride + (:ub + 37 * 60) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 61 * :stride + (:ub + 37 * 61) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 61)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 61))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 61 * :stride + (:ub + 37 * 61) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 61 * :stride + (:ub + 37 * 61) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 61)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 61))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 61))::uuid, md5('bench-user-' || (1 + 61 * :stride + (:ub + 37 * 61) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 61)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 61 * :stride + (:ub + 37 * 61) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 61 * :stride + (:ub + 37 * 61) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 61)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 61 * :stride + (:ub + 37 * 61) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 62 * :stride + (:ub + 37 * 62) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 62)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 62))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 62 * :stride + (:ub + 37 * 62) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 62 * :stride + (:ub + 37 * 62) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 62)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 62))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 62))::uuid, md5('bench-user-' || (1 + 62 * :stride + (:ub + 37 * 62) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 62)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 62 * :stride + (:ub + 37 * 62) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 62 * :stride + (:ub + 37 * 62) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 62)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 62 * :stride + (:ub + 37 * 62) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 63 * :stride + (:ub + 37 * 63) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 63)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 63))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 63 * :stride + (:ub + 37 * 63) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 63 * :stride + (:ub + 37 * 63) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 63)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 63))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 63))::uuid, md5('bench-user-' || (1 + 63 * :stride + (:ub + 37 * 63) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 63)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 63 * :stride + (:ub + 37 * 63) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 63 * :stride + (:ub + 37 * 63) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 63)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 63 * :stride + (:ub + 37 * 63) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 64 * :stride + (:ub + 37 * 64) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 64)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 64))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 64 * :stride + (:ub + 37 * 64) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 64 * :stride + (:ub + 37 * 64) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 64)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 64))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 64))::uuid, md5('bench-user-' || (1 + 64 * :stride + (:ub + 37 * 64) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 64)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 64 * :stride + (:ub + 37 * 64) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 64 * :stride + (:ub + 37 * 64) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 64)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 64 * :stride + (:ub + 37 * 64) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 65 * :stride + (:ub + 37 * 65) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 65)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 65))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 65 * :stride + (:ub + 37 * 65) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 65 * :stride + (:ub + 37 * 65) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 65)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 65))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 65))::uuid, md5('bench-user-' || (1 + 65 * :stride + (:ub + 37 * 65) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 65)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 65 * :stride + (:ub + 37 * 65) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 65 * :stride + (:ub + 37 * 65) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 65)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 65 * :stride + (:ub + 37 * 65) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 66 * :stride + (:ub + 37 * 66) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 66)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 66))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 66 * :stride + (:ub + 37 * 66) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 66 * :stride + (:ub + 37 * 66) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 66)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 66))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 66))::uuid, md5('bench-user-' || (1 + 66 * :stride + (:ub + 37 * 66) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 66)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 66 * :stride + (:ub + 37 * 66) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 66 * :stride + (:ub + 37 * 66) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 66)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 66 * :stride + (:ub + 37 * 66) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 67 * :stride + (:ub + 37 * 67) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 67)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 67))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 67 * :stride + (:ub + 37 * 67) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 67 * :stride + (:ub + 37 * 67) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 67)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 67))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 67))::uuid, md5('bench-user-' || (1 + 67 * :stride + (:ub + 37 * 67) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 67)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 67 * :stride + (:ub + 37 * 67) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 67 * :stride + (:ub + 37 * 67) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 67)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 67 * :stride + (:ub + 37 * 67) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 68 * :stride + (:ub + 37 * 68) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 68)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 68))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 68 * :stride + (:ub + 37 * 68) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 68 * :stride + (:ub + 37 * 68) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 68)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 68))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 68))::uuid, md5('bench-user-' || (1 + 68 * :stride + (:ub + 37 * 68) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 68)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 68 * :stride + (:ub + 37 * 68) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 68 * :stride + (:ub + 37 * 68) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 68)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 68 * :stride + (:ub + 37 * 68) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 69 * :stride + (:ub + 37 * 69) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 69)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 69))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 69 * :stride + (:ub + 37 * 69) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 69 * :stride + (:ub + 37 * 69) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 69)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 69))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 69))::uuid, md5('bench-user-' || (1 + 69 * :stride + (:ub + 37 * 69) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 69)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 69 * :stride + (:ub + 37 * 69) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 69 * :stride + (:ub + 37 * 69) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 69)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 69 * :stride + (:ub + 37 * 69) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 70 * :stride + (:ub + 37 * 70) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 70)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 70))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 70 * :stride + (:ub + 37 * 70) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 70 * :stride + (:ub + 37 * 70) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 70)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 70))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 70))::uuid, md5('bench-user-' || (1 + 70 * :stride + (:ub + 37 * 70) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 70)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 70 * :stride + (:ub + 37 * 70) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 70 * :stride + (:ub + 37 * 70) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 70)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 70 * :stride + (:ub + 37 * 70) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 71 * :stride + (:ub + 37 * 71) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 71)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 71))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 71 * :stride + (:ub + 37 * 71) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 71 * :stride + (:ub + 37 * 71) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 71)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 71))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 71))::uuid, md5('bench-user-' || (1 + 71 * :stride + (:ub + 37 * 71) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 71)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 71 * :stride + (:ub + 37 * 71) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 71 * :stride + (:ub + 37 * 71) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 71)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 71 * :stride + (:ub + 37 * 71) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 72 * :stride + (:ub + 37 * 72) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 72)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 72))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 72 * :stride + (:ub + 37 * 72) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 72 * :stride + (:ub + 37 * 72) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 72)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 72))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 72))::uuid, md5('bench-user-' || (1 + 72 * :stride + (:ub + 37 * 72) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 72)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 72 * :stride + (:ub + 37 * 72) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 72 * :stride + (:ub + 37 * 72) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 72)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 72 * :stride + (:ub + 37 * 72) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 73 * :stride + (:ub + 37 * 73) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 73)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 73))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 73 * :stride + (:ub + 37 * 73) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 73 * :stride + (:ub + 37 * 73) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 73)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 73))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 73))::uuid, md5('bench-user-' || (1 + 73 * :stride + (:ub + 37 * 73) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 73)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 73 * :stride + (:ub + 37 * 73) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 73 * :stride + (:ub + 37 * 73) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 73)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 73 * :stride + (:ub + 37 * 73) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 74 * :stride + (:ub + 37 * 74) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 74)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 74))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 74 * :stride + (:ub + 37 * 74) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 74 * :stride + (:ub + 37 * 74) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 74)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 74))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 74))::uuid, md5('bench-user-' || (1 + 74 * :stride + (:ub + 37 * 74) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 74)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 74 * :stride + (:ub + 37 * 74) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 74 * :stride + (:ub + 37 * 74) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 74)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 74 * :stride + (:ub + 37 * 74) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 75 * :stride + (:ub + 37 * 75) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 75)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 75))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 75 * :stride + (:ub + 37 * 75) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 75 * :stride + (:ub + 37 * 75) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 75)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 75))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 75))::uuid, md5('bench-user-' || (1 + 75 * :stride + (:ub + 37 * 75) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 75)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 75 * :stride + (:ub + 37 * 75) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 75 * :stride + (:ub + 37 * 75) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 75)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 75 * :stride + (:ub + 37 * 75) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 76 * :stride + (:ub + 37 * 76) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 76)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 76))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 76 * :stride + (:ub + 37 * 76) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 76 * :stride + (:ub + 37 * 76) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 76)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 76))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 76))::uuid, md5('bench-user-' || (1 + 76 * :stride + (:ub + 37 * 76) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 76)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 76 * :stride + (:ub + 37 * 76) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 76 * :stride + (:ub + 37 * 76) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 76)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 76 * :stride + (:ub + 37 * 76) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 77 * :stride + (:ub + 37 * 77) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 77)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 77))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 77 * :stride + (:ub + 37 * 77) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 77 * :stride + (:ub + 37 * 77) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 77)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 77))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 77))::uuid, md5('bench-user-' || (1 + 77 * :stride + (:ub + 37 * 77) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 77)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 77 * :stride + (:ub + 37 * 77) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 77 * :stride + (:ub + 37 * 77) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 77)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 77 * :stride + (:ub + 37 * 77) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 78 * :stride + (:ub + 37 * 78) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 78)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 78))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 78 * :stride + (:ub + 37 * 78) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 78 * :stride + (:ub + 37 * 78) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 78)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 78))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 78))::uuid, md5('bench-user-' || (1 + 78 * :stride + (:ub + 37 * 78) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 78)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 78 * :stride + (:ub + 37 * 78) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 78 * :stride + (:ub + 37 * 78) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 78)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 78 * :stride + (:ub + 37 * 78) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 79 * :stride + (:ub + 37 * 79) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 79)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 79))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 79 * :stride + (:ub + 37 * 79) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 79 * :stride + (:ub + 37 * 79) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 79)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 79))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 79))::uuid, md5('bench-user-' || (1 + 79 * :stride + (:ub + 37 * 79) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 79)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 79 * :stride + (:ub + 37 * 79) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 79 * :stride + (:ub + 37 * 79) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 79)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 79 * :stride + (:ub + 37 * 79) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 80 * :stride + (:ub + 37 * 80) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 80)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 80))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 80 * :stride + (:ub + 37 * 80) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 80 * :stride + (:ub + 37 * 80) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 80)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 80))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 80))::uuid, md5('bench-user-' || (1 + 80 * :stride + (:ub + 37 * 80) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 80)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 80 * :stride + (:ub + 37 * 80) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 80 * :stride + (:ub + 37 * 80) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 80)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 80 * :stride + (:ub + 37 * 80) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 81 * :stride + (:ub + 37 * 81) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 81)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 81))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 81 * :stride + (:ub + 37 * 81) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 81 * :stride + (:ub + 37 * 81) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 81)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 81))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 81))::uuid, md5('bench-user-' || (1 + 81 * :stride + (:ub + 37 * 81) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 81)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 81 * :stride + (:ub + 37 * 81) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 81 * :stride + (:ub + 37 * 81) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 81)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 81 * :stride + (:ub + 37 * 81) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 82 * :stride + (:ub + 37 * 82) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 82)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 82))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 82 * :stride + (:ub + 37 * 82) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 82 * :stride + (:ub + 37 * 82) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 82)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 82))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 82))::uuid, md5('bench-user-' || (1 + 82 * :stride + (:ub + 37 * 82) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 82)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 82 * :stride + (:ub + 37 * 82) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 82 * :stride + (:ub + 37 * 82) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 82)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 82 * :stride + (:ub + 37 * 82) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 83 * :stride + (:ub + 37 * 83) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 83)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 83))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 83 * :stride + (:ub + 37 * 83) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 83 * :stride + (:ub + 37 * 83) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 83)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 83))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 83))::uuid, md5('bench-user-' || (1 + 83 * :stride + (:ub + 37 * 83) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 83)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 83 * :stride + (:ub + 37 * 83) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 83 * :stride + (:ub + 37 * 83) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 83)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 83 * :stride + (:ub + 37 * 83) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 84 * :stride + (:ub + 37 * 84) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 84)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 84))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 84 * :stride + (:ub + 37 * 84) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 84 * :stride + (:ub + 37 * 84) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 84)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 84))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 84))::uuid, md5('bench-user-' || (1 + 84 * :stride + (:ub + 37 * 84) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 84)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 84 * :stride + (:ub + 37 * 84) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 84 * :stride + (:ub + 37 * 84) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 84)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 84 * :stride + (:ub + 37 * 84) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 85 * :stride + (:ub + 37 * 85) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 85)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 85))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 85 * :stride + (:ub + 37 * 85) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 85 * :stride + (:ub + 37 * 85) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 85)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 85))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 85))::uuid, md5('bench-user-' || (1 + 85 * :stride + (:ub + 37 * 85) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 85)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 85 * :stride + (:ub + 37 * 85) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 85 * :stride + (:ub + 37 * 85) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 85)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 85 * :stride + (:ub + 37 * 85) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 86 * :stride + (:ub + 37 * 86) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 86)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 86))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 86 * :stride + (:ub + 37 * 86) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 86 * :stride + (:ub + 37 * 86) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 86)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 86))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 86))::uuid, md5('bench-user-' || (1 + 86 * :stride + (:ub + 37 * 86) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 86)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 86 * :stride + (:ub + 37 * 86) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 86 * :stride + (:ub + 37 * 86) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 86)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 86 * :stride + (:ub + 37 * 86) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 87 * :stride + (:ub + 37 * 87) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 87)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 87))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 87 * :stride + (:ub + 37 * 87) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 87 * :stride + (:ub + 37 * 87) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 87)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 87))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 87))::uuid, md5('bench-user-' || (1 + 87 * :stride + (:ub + 37 * 87) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 87)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 87 * :stride + (:ub + 37 * 87) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 87 * :stride + (:ub + 37 * 87) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 87)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 87 * :stride + (:ub + 37 * 87) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 88 * :stride + (:ub + 37 * 88) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 88)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 88))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 88 * :stride + (:ub + 37 * 88) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 88 * :stride + (:ub + 37 * 88) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 88)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 88))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 88))::uuid, md5('bench-user-' || (1 + 88 * :stride + (:ub + 37 * 88) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 88)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 88 * :stride + (:ub + 37 * 88) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 88 * :stride + (:ub + 37 * 88) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 88)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 88 * :stride + (:ub + 37 * 88) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 89 * :stride + (:ub + 37 * 89) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 89)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 89))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 89 * :stride + (:ub + 37 * 89) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 89 * :stride + (:ub + 37 * 89) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 89)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 89))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 89))::uuid, md5('bench-user-' || (1 + 89 * :stride + (:ub + 37 * 89) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 89)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 89 * :stride + (:ub + 37 * 89) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 89 * :stride + (:ub + 37 * 89) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 89)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 89 * :stride + (:ub + 37 * 89) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 90 * :stride + (:ub + 37 * 90) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 90)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 90))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 90 * :stride + (:ub + 37 * 90) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 90 * :stride + (:ub + 37 * 90) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 90)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 90))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 90))::uuid, md5('bench-user-' || (1 + 90 * :stride + (:ub + 37 * 90) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 90)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 90 * :stride + (:ub + 37 * 90) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 90 * :stride + (:ub + 37 * 90) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 90)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 90 * :stride + (:ub + 37 * 90) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 91 * :stride + (:ub + 37 * 91) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 91)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 91))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 91 * :stride + (:ub + 37 * 91) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 91 * :stride + (:ub + 37 * 91) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 91)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 91))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 91))::uuid, md5('bench-user-' || (1 + 91 * :stride + (:ub + 37 * 91) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 91)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 91 * :stride + (:ub + 37 * 91) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 91 * :stride + (:ub + 37 * 91) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 91)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 91 * :stride + (:ub + 37 * 91) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 92 * :stride + (:ub + 37 * 92) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 92)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 92))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 92 * :stride + (:ub + 37 * 92) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 92 * :stride + (:ub + 37 * 92) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 92)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 92))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 92))::uuid, md5('bench-user-' || (1 + 92 * :stride + (:ub + 37 * 92) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 92)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 92 * :stride + (:ub + 37 * 92) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 92 * :stride + (:ub + 37 * 92) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 92)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 92 * :stride + (:ub + 37 * 92) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 93 * :stride + (:ub + 37 * 93) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 93)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 93))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 93 * :stride + (:ub + 37 * 93) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 93 * :stride + (:ub + 37 * 93) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 93)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 93))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 93))::uuid, md5('bench-user-' || (1 + 93 * :stride + (:ub + 37 * 93) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 93)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 93 * :stride + (:ub + 37 * 93) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 93 * :stride + (:ub + 37 * 93) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 93)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 93 * :stride + (:ub + 37 * 93) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 94 * :stride + (:ub + 37 * 94) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 94)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 94))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 94 * :stride + (:ub + 37 * 94) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 94 * :stride + (:ub + 37 * 94) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 94)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 94))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 94))::uuid, md5('bench-user-' || (1 + 94 * :stride + (:ub + 37 * 94) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 94)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 94 * :stride + (:ub + 37 * 94) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 94 * :stride + (:ub + 37 * 94) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 94)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 94 * :stride + (:ub + 37 * 94) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 95 * :stride + (:ub + 37 * 95) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 95)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 95))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 95 * :stride + (:ub + 37 * 95) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 95 * :stride + (:ub + 37 * 95) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 95)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 95))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 95))::uuid, md5('bench-user-' || (1 + 95 * :stride + (:ub + 37 * 95) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 95)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 95 * :stride + (:ub + 37 * 95) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 95 * :stride + (:ub + 37 * 95) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 95)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 95 * :stride + (:ub + 37 * 95) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 96 * :stride + (:ub + 37 * 96) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 96)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 96))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 96 * :stride + (:ub + 37 * 96) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 96 * :stride + (:ub + 37 * 96) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 96)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 96))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 96))::uuid, md5('bench-user-' || (1 + 96 * :stride + (:ub + 37 * 96) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 96)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 96 * :stride + (:ub + 37 * 96) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 96 * :stride + (:ub + 37 * 96) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 96)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 96 * :stride + (:ub + 37 * 96) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 97 * :stride + (:ub + 37 * 97) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 97)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 97))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 97 * :stride + (:ub + 37 * 97) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 97 * :stride + (:ub + 37 * 97) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 97)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 97))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 97))::uuid, md5('bench-user-' || (1 + 97 * :stride + (:ub + 37 * 97) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 97)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 97 * :stride + (:ub + 37 * 97) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 97 * :stride + (:ub + 37 * 97) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 97)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 97 * :stride + (:ub + 37 * 97) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 98 * :stride + (:ub + 37 * 98) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 98)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 98))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 98 * :stride + (:ub + 37 * 98) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 98 * :stride + (:ub + 37 * 98) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 98)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 98))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 98))::uuid, md5('bench-user-' || (1 + 98 * :stride + (:ub + 37 * 98) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 98)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 98 * :stride + (:ub + 37 * 98) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 98 * :stride + (:ub + 37 * 98) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 98)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 98 * :stride + (:ub + 37 * 98) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
WITH mine AS (
  SELECT 1 FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 99 * :stride + (:ub + 37 * 99) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 99)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 99))::uuid
), bump AS (
  INSERT INTO usage_counters AS c (user_id, feature, period_start, period_end, used, limit_value, updated_at)
  SELECT md5('bench-user-' || (1 + 99 * :stride + (:ub + 37 * 99) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + interval '1 month'), 1::bigint, 1000000000::bigint, now() FROM mine WHERE NOT true::boolean OR 1::bigint <= 1000000000::bigint
  ON CONFLICT (user_id, feature, period_start) DO UPDATE
     SET used = c.used + EXCLUDED.used, limit_value = EXCLUDED.limit_value, updated_at = EXCLUDED.updated_at
   WHERE NOT true::boolean OR c.used + EXCLUDED.used <= 1000000000::bigint
  RETURNING c.used
), undo AS (
  DELETE FROM usage_claims WHERE user_id = md5('bench-user-' || (1 + 99 * :stride + (:ub + 37 * 99) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 99)) AND event_id = md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 99))::uuid AND NOT EXISTS (SELECT 1 FROM bump)
), ev AS (
  INSERT INTO usage_events (id, user_id, feature, kind, quantity, key, period_start, occurred_at, created_at)
  SELECT md5('pg-event-' || :client_id || '-' || (:rb::bigint * 1000 + 99))::uuid, md5('bench-user-' || (1 + 99 * :stride + (:ub + 37 * 99) % :stride))::uuid, 'api_calls', 'usage', 1::bigint, ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 99)), (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), now(), now() FROM bump
), note AS (
  INSERT INTO usage_notifications (user_id, feature, period_start, threshold, used, limit_value, created_at)
  SELECT md5('bench-user-' || (1 + 99 * :stride + (:ub + 37 * 99) % :stride))::uuid, 'api_calls', (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), t.name, b.used, 1000000000::bigint, now()
    FROM bump b, (VALUES ('limit_80', 80), ('limit_100', 100)) AS t(name, pct)
   WHERE 1000000000::bigint > 0 AND (b.used - 1::bigint) * 100 < 1000000000::bigint * t.pct AND b.used * 100 >= 1000000000::bigint * t.pct
  ON CONFLICT ON CONSTRAINT uq_usage_notifications DO NOTHING
  RETURNING threshold
), orig AS (
  SELECT event_id, feature, quantity FROM usage_claims
   WHERE user_id = md5('bench-user-' || (1 + 99 * :stride + (:ub + 37 * 99) % :stride))::uuid AND key = ('pg-' || :client_id || '-' || (:rb::bigint * 1000 + 99)) AND NOT EXISTS (SELECT 1 FROM mine)
)
SELECT EXISTS (SELECT 1 FROM mine), coalesce((SELECT used FROM bump), -1),
       coalesce((SELECT used FROM usage_counters WHERE user_id = md5('bench-user-' || (1 + 99 * :stride + (:ub + 37 * 99) % :stride))::uuid AND feature = 'api_calls' AND period_start = (date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')), 0),
       coalesce((SELECT array_agg(threshold::text) FROM note), '{}'),
       coalesce((SELECT event_id FROM orig), '00000000-0000-0000-0000-000000000000'),
       coalesce((SELECT feature FROM orig), ''), coalesce((SELECT quantity FROM orig), 0);
COMMIT;
\endpipeline
