-- The SQL the server runs for one new Clerk user.created delivery, statement for statement (checked against
-- Postgres's log_statement=all while the server handled one): webhook.Pipeline.process (BEGIN, gorm's
-- SAVEPOINT for the handler, the claim, ... the archive row, COMMIT; gorm never RELEASEs the savepoint),
-- account.onUserCreated (the user upsert, credits.Grant, audit.Write) and jobs.Queue.EnqueueEmailTx, whose
-- River InsertTx is one INSERT INTO river_job (River's JobInsertFastMany over one-element arrays; written
-- here as the equivalent single-row insert with the same conflict clause and RETURNING list). Not
-- included: River's pg_notify, which its insert limiter sends at most once per 100 ms, not per delivery.
-- Parameters are pgbench variables instead of the server's bind values; ids are unique per transaction.
-- pgbench reads :name as a variable even inside a string literal, so literal colons are written chr(58)
-- in SQL text, \u003a inside JSON strings, and a JSON value follows its key's colon after a space.
\set r random(1, 9000000000000)
\set ms 1700000000000 + random(0, 99999999999)
BEGIN;
SAVEPOINT sp1;
INSERT INTO processed_webhook_events (provider, event_id, event_type)
VALUES ('clerk', 'msg_pgbfull_' || :client_id::text || '_' || :r::text, 'user.created')
ON CONFLICT ON CONSTRAINT uq_processed_webhook_events_provider_event_id DO NOTHING RETURNING id;
INSERT INTO users (clerk_user_id, email, email_verified, clerk_synced_at)
VALUES ('user_pgbfull_' || :client_id::text || '_' || :r::text, 'pgbfull_' || :client_id::text || '_' || :r::text || '@bench.test',
        'pgbfull_' || :client_id::text || '_' || :r::text || '@bench.test' <> '', to_timestamp(:ms / 1000.0))
ON CONFLICT ON CONSTRAINT uq_users_clerk_user_id DO UPDATE
   SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified,
       clerk_synced_at = EXCLUDED.clerk_synced_at, updated_at = now()
 WHERE users.deleted_at IS NULL
   AND (users.clerk_synced_at IS NULL OR users.clerk_synced_at < EXCLUDED.clerk_synced_at)
RETURNING id AS uid, deleted_at \gset
INSERT INTO credit_transactions (user_id, delta, kind, job_id, reason)
VALUES (CAST(:uid AS uuid), 25, 'grant', 'signup' || chr(58) || 'user_pgbfull_' || :client_id::text || '_' || :r::text, 'signup credits')
ON CONFLICT ON CONSTRAINT uq_credit_transactions_user_job_kind DO NOTHING
RETURNING id, user_id, delta, kind, job_id, reason, created_at, expires_at;
INSERT INTO audit_logs (actor, action, user_id, resource_type, resource_id, details, ip)
VALUES ('clerk' || chr(58) || 'webhook', 'user.created', CAST(:uid AS uuid), 'user', 'user_pgbfull_' || :client_id::text || '_' || :r::text,
        CAST('{"event_id":"msg_pgbfull_' || :client_id::text || '_' || :r::text || '","signup_credits_granted": true}' AS jsonb),
        CAST(NULL AS inet));
INSERT INTO river_job (id, args, created_at, kind, max_attempts, metadata, priority, queue, scheduled_at, state, tags,
                       unique_key, unique_states)
VALUES (nextval('river_job_id_seq'::regclass),
        CAST('{"to":"pgbfull_' || :client_id::text || '_' || :r::text ||
             '@bench.test","data":{"Email":"pgbfull_' || :client_id::text || '_' || :r::text ||
             '@bench.test","AppName":"Fabrica","DashboardURL":"http\u003a//localhost\u003a8080"},"template":"welcome","idempotency_key":"welcome/user_pgbfull_' ||
             :client_id::text || '_' || :r::text || '"}' AS jsonb),
        now(), 'email', 12, '{}'::jsonb, 1, 'email', now(), 'available'::river_job_state,
        string_to_array('', ',')::varchar(255)[], NULL, NULL)
ON CONFLICT (unique_key)
    WHERE unique_key IS NOT NULL AND unique_states IS NOT NULL AND river_job_state_in_bitmask(unique_states, state)
    DO UPDATE SET kind = river_job.kind
RETURNING river_job.id, river_job.args, river_job.attempt, river_job.attempted_at, river_job.attempted_by,
          river_job.created_at, river_job.errors, river_job.finalized_at, river_job.kind, river_job.max_attempts,
          river_job.metadata, river_job.priority, river_job.queue, river_job.state, river_job.scheduled_at,
          river_job.tags, river_job.unique_key, river_job.unique_states, (xmax != 0) AS unique_skipped_as_duplicate;
INSERT INTO webhook_events (provider, event_id, event_type, source, body, signature, processing_status, error_message)
VALUES ('clerk', 'msg_pgbfull_' || :client_id::text || '_' || :r::text, 'user.created', 'webhook',
        convert_to('{"type":"user.created","object":"event","timestamp":' || :ms::text ||
             ',"data":{"id":"user_pgbfull_' || :client_id::text || '_' || :r::text ||
             '","object":"user","primary_email_address_id":"idn_1","email_addresses":[{"id":"idn_1","email_address":"pgbfull_' ||
             :client_id::text || '_' || :r::text || '@bench.test","verification":{"status":"verified"}}],"updated_at":' || :ms::text || '}}', 'UTF8'),
        'v1,ZXhhbXBsZS1zaWduYXR1cmUtb2YtZm9ydHktZm91ci1ieXQ=', 'processed', NULL);
COMMIT;
