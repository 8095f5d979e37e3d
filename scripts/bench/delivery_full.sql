-- T2's baseline (docs/benchmarks.md): the SQL the server runs for one new Clerk user.created, statement for
-- statement and round trip for round trip, checked against Postgres's log_statement=all while the server
-- handled one. Four round trips, as the server sends them (db.Pipelined): BEGIN with the claim and archive
-- row (webhook.claimAndArchiveSQL); the user upsert with the tombstone check (account.upsertUserSQL) and
-- the sign-up claim with the second tombstone look (account.claimSignupSQL); the disposable-domain lookup;
-- then the held-back writes, the signup grant, the welcome-email job (jobs.insertSQL) and the audit row,
-- with COMMIT. pgbench pipelines the same statements into as many round trips (\startpipeline; it cannot
-- \gset inside a pipeline, so the upsert, whose id the grant needs, goes alone and the claim rides with the
-- disposable lookup instead), so the comparison is the server's own cost, not a different number of round
-- trips. The job insert's notify flag is false here; the server
-- sets it at most once per 100 ms per queue (its insert limiter, as River's). sha256() stands in for the
-- HMAC the server computes in Go for the tombstone lookup.
-- Parameters are pgbench variables instead of the server's bind values; ids are unique per transaction.
-- pgbench reads :name as a variable even inside a string literal, so literal colons are written chr(58)
-- in SQL text, \u003a inside JSON strings, and a JSON value follows its key's colon after a space.
\set r random(1, 9000000000000)
\set ms 1700000000000 + random(0, 99999999999)
\startpipeline
BEGIN;
WITH claim AS (
  INSERT INTO processed_webhook_events (provider, event_id, event_type)
  VALUES ('clerk', 'msg_pgbfull_' || :client_id::text || '_' || :r::text, 'user.created')
  ON CONFLICT ON CONSTRAINT uq_processed_webhook_events_provider_event_id DO NOTHING RETURNING 1)
INSERT INTO webhook_events (provider, event_id, event_type, source, body, signature, processing_status, replay_of)
SELECT 'clerk', 'msg_pgbfull_' || :client_id::text || '_' || :r::text, 'user.created', 'webhook',
       convert_to('{"type":"user.created","object":"event","timestamp":' || :ms::text ||
            ',"data":{"id":"user_pgbfull_' || :client_id::text || '_' || :r::text ||
            '","object":"user","primary_email_address_id":"idn_1","email_addresses":[{"id":"idn_1","email_address":"pgbfull_' ||
            :client_id::text || '_' || :r::text || '@bench.test","verification":{"status":"verified"}}],"updated_at":' || :ms::text || '}}', 'UTF8'),
       'v1,ZXhhbXBsZS1zaWduYXR1cmUtb2YtZm9ydHktZm91ci1ieXQ=',
       CASE WHEN EXISTS (SELECT FROM claim) THEN 'processed' ELSE 'skipped' END, NULL
RETURNING processing_status;
\endpipeline
INSERT INTO users (clerk_user_id, email, email_verified, clerk_synced_at)
SELECT 'user_pgbfull_' || :client_id::text || '_' || :r::text, 'pgbfull_' || :client_id::text || '_' || :r::text || '@bench.test',
       true, to_timestamp(:ms / 1000.0)
 WHERE NOT EXISTS (SELECT 1 FROM erased_users
                    WHERE clerk_id_hash = sha256(convert_to('user_pgbfull_' || :client_id::text || '_' || :r::text, 'UTF8')))
ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE
   SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified,
       clerk_synced_at = EXCLUDED.clerk_synced_at, updated_at = now()
 WHERE users.deleted_at IS NULL
   AND (users.clerk_synced_at IS NULL OR users.clerk_synced_at < EXCLUDED.clerk_synced_at)
RETURNING id AS uid, deleted_at IS NOT NULL AS deleted, xmax = 0 AS inserted \gset
\startpipeline
UPDATE users SET signup_completed_at = now()
 WHERE clerk_user_id = 'user_pgbfull_' || :client_id::text || '_' || :r::text AND signup_completed_at IS NULL AND deleted_at IS NULL
RETURNING coalesce(email, ''), EXISTS (SELECT 1 FROM erased_users
                    WHERE clerk_id_hash = sha256(convert_to('user_pgbfull_' || :client_id::text || '_' || :r::text, 'UTF8')));
SELECT EXISTS (SELECT 1 FROM disposable_domains) AS stored,
       (SELECT domain FROM disposable_domains WHERE domain = ANY(CAST('{bench.test}' AS text[])) ORDER BY length(domain) DESC LIMIT 1) AS hit;
\endpipeline
\startpipeline
INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason)
VALUES (CAST(:uid AS uuid), 25, 'grant', 'signup' || chr(58) || 'user_pgbfull_' || :client_id::text || '_' || :r::text, 'signup credits')
ON CONFLICT ON CONSTRAINT uq_credit_transactions_user_job_kind DO NOTHING;
WITH job AS (
  INSERT INTO river_job (args, kind, max_attempts, priority, queue, state, metadata, tags)
  VALUES (CAST('{"to": "pgbfull_' || :client_id::text || '_' || :r::text ||
               '@bench.test", "data": {"Email": "pgbfull_' || :client_id::text || '_' || :r::text ||
               '@bench.test", "AppName": "Fabrica", "DashboardURL": "http\u003a//localhost\u003a8080"}, "template": "welcome", "idempotency_key": "welcome/user_pgbfull_' ||
               :client_id::text || '_' || :r::text || '"}' AS jsonb),
          'email', 12, 1, 'email', 'available', '{}', '{}') RETURNING queue)
SELECT CASE WHEN false THEN pg_notify(current_schema() || '.river_insert', json_build_object('queue', queue)::text) END FROM job;
INSERT INTO audit_logs (actor, action, user_id, resource_type, resource_id, details, ip)
VALUES ('clerk' || chr(58) || 'webhook', 'user.created', CAST(:uid AS uuid), 'user', 'user_pgbfull_' || :client_id::text || '_' || :r::text,
        CAST('{"event_id": "msg_pgbfull_' || :client_id::text || '_' || :r::text || '", "signup_hooks_ran": true}' AS jsonb),
        CAST(NULL AS inet));
COMMIT;
\endpipeline
