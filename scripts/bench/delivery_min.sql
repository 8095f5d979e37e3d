-- The minimal SQL of one new webhook delivery, driven by pgbench in scripts/bench.sh: the archive row,
-- the dedup claim and one ledger row, committed together. It is the floor any implementation of the
-- pipeline pays in Postgres; the server's new-event throughput is compared against it.
-- The payload has the shape and size of what bin/loadgen sends, and is built per transaction so Postgres
-- parses the jsonb every time, as it does for the server's CAST($4 AS jsonb). Each pgbench client writes
-- to its own pre-created user (bench.sh creates them), so clients do not share the row the ledger's
-- foreign key check locks; the server never shares one either (one new user per event).
\set r random(1, 9000000000000)
\set ms 1700000000000 + random(0, 99999999999)
\set uid 100000000000 + :client_id
BEGIN;
INSERT INTO webhook_events (provider, event_id, event_type, source, body, signature, processing_status)
VALUES ('clerk', 'msg_pgbmin_' || :client_id::text || '_' || :r::text, 'user.created', 'webhook',
        convert_to('{"type":"user.created","object":"event","timestamp":' || :ms::text ||
             ',"data":{"id":"user_pgbmin_' || :client_id::text || '_' || :r::text ||
             '","object":"user","primary_email_address_id":"idn_1","email_addresses":[{"id":"idn_1","email_address":"pgbmin_' ||
             :client_id::text || '_' || :r::text || '@bench.test","verification":{"status":"verified"}}],"updated_at":' || :ms::text || '}}', 'UTF8'),
        'v1,ZXhhbXBsZS1zaWduYXR1cmUtb2YtZm9ydHktZm91ci1ieXQ=', 'processed');
INSERT INTO processed_webhook_events (provider, event_id, event_type)
VALUES ('clerk', 'msg_pgbmin_' || :client_id::text || '_' || :r::text, 'user.created')
ON CONFLICT DO NOTHING;
INSERT INTO credit_transactions (user_id, delta, kind, job_id)
VALUES (CAST('00000000-0000-4000-8000-' || :uid::text AS uuid), 25, 'grant', 'pgbmin:' || :client_id::text || '_' || :r::text)
ON CONFLICT DO NOTHING;
COMMIT;
