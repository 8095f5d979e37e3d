-- T1's baseline (docs/benchmarks.md): the two inserts of a delivery no handler takes, the dedup claim and
-- the archive row, in one transaction, pipelined into one round trip (\startpipeline): the fewest round
-- trips any client can spend on them. The server writes the same two rows, in one autocommitted statement
-- (webhook.claimAndArchiveSQL), for each new session.created that bin/loadgen -mode bare sends; the body
-- has the shape and size of loadgen's. pgbench reads :name as a variable even inside a string literal.
\set r random(1, 9000000000000)
\set ms 1700000000000 + random(0, 99999999999)
\startpipeline
BEGIN;
INSERT INTO processed_webhook_events (provider, event_id, event_type)
VALUES ('clerk', 'msg_pgbbare_' || :client_id::text || '_' || :r::text, 'session.created')
ON CONFLICT ON CONSTRAINT uq_processed_webhook_events_provider_event_id DO NOTHING;
INSERT INTO webhook_events (provider, event_id, event_type, source, body, signature, processing_status)
VALUES ('clerk', 'msg_pgbbare_' || :client_id::text || '_' || :r::text, 'session.created', 'webhook',
        convert_to('{"type":"session.created","object":"event","timestamp":' || :ms::text ||
             ',"data":{"id":"user_pgbbare_' || :client_id::text || '_' || :r::text ||
             '","object":"user","primary_email_address_id":"idn_1","email_addresses":[{"id":"idn_1","email_address":"pgbbare_' ||
             :client_id::text || '_' || :r::text || '@bench.test","verification":{"status":"verified"}}],"updated_at":' || :ms::text || '}}', 'UTF8'),
        'v1,ZXhhbXBsZS1zaWduYXR1cmUtb2YtZm9ydHktZm91ci1ieXQ=', 'ignored');
COMMIT;
\endpipeline
