-- The webhook archive, rebuilt (issues 10 and 15):
--  body     the delivery's raw bytes (BYTEA) instead of JSONB. Any verified delivery is now storable: a signed
--           body with \u0000 (users control Paddle custom_data and Clerk unsafe_metadata) made the jsonb cast
--           fail, so the delivery had no claim, no archive row and a 500 forever. The bytes are also exactly
--           what was signed, and Postgres no longer parses every payload on the hot path.
--  source   how the delivery came: webhook, sync (pull reconciliation from the provider's API) or replay.
--  range-partitioned by month on created_at, so the retention purge drops whole partitions instead of
--           deleting rows. The claims table (processed_webhook_events) is untouched and kept forever.
-- replay_of loses its foreign key: a foreign key to a partitioned table must include the partition key. It is
-- a forensic link; after a purge it may name a row that is gone, which readers treat as "purged".
-- Existing rows are copied: an old malformed delivery (stored as a JSON string of its sanitised text) gets
-- that text back as its body; everything else gets its JSON text. A large archive makes this copy slow
-- (one transaction): purge it first (fabrica purge-archive) if that matters.

-- +goose Up
ALTER TABLE webhook_events RENAME TO webhook_events_unpartitioned;
ALTER INDEX webhook_events_pkey RENAME TO webhook_events_unpartitioned_pkey;
ALTER INDEX ix_webhook_events_status_created_at RENAME TO ix_webhook_events_unpartitioned_status;
ALTER INDEX ix_webhook_events_provider_event_id RENAME TO ix_webhook_events_unpartitioned_event;
ALTER INDEX ix_webhook_events_created_at RENAME TO ix_webhook_events_unpartitioned_created;
ALTER INDEX ix_webhook_events_replay_of RENAME TO ix_webhook_events_unpartitioned_replay;
ALTER TABLE webhook_events_unpartitioned RENAME CONSTRAINT ck_webhook_events_processing_status TO ck_webhook_events_unpartitioned_status;

CREATE TABLE webhook_events (
    id                UUID         NOT NULL DEFAULT gen_random_uuid(),
    provider          VARCHAR(32)  NOT NULL,
    event_id          VARCHAR(255) NOT NULL,
    event_type        VARCHAR(128) NOT NULL,
    source            VARCHAR(16)  NOT NULL DEFAULT 'webhook',
    body              BYTEA        NOT NULL,
    signature         TEXT,
    processing_status VARCHAR(32)  NOT NULL DEFAULT 'pending',
    error_message     TEXT,
    replay_of         UUID,
    created_at        TIMESTAMPTZ  NOT NULL DEFAULT NOW(),
    CONSTRAINT pk_webhook_events PRIMARY KEY (created_at, id),
    CONSTRAINT ck_webhook_events_processing_status
        CHECK (processing_status IN ('pending', 'processed', 'skipped', 'failed', 'ignored')),
    CONSTRAINT ck_webhook_events_source CHECK (source IN ('webhook', 'sync', 'replay'))
) PARTITION BY RANGE (created_at);

-- Forensics: "what failed in the last day", "every delivery of this event", one delivery by id.
CREATE INDEX ix_webhook_events_status_created_at ON webhook_events (processing_status, created_at);
CREATE INDEX ix_webhook_events_provider_event_id ON webhook_events (provider, event_id);
CREATE INDEX ix_webhook_events_id ON webhook_events (id);
CREATE INDEX ix_webhook_events_replay_of ON webhook_events (replay_of) WHERE replay_of IS NOT NULL;

-- A partition per month, from the oldest archived row's month through three months ahead; the
-- archive-partitions task keeps creating them ahead (webhook.EnsurePartitions, same names).
-- +goose StatementBegin
DO $$
DECLARE
    m date := date_trunc('month', LEAST(now(), coalesce((SELECT min(created_at) FROM webhook_events_unpartitioned), now())) AT TIME ZONE 'UTC');
BEGIN
    WHILE m <= date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months' LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF webhook_events FOR VALUES FROM (%L) TO (%L)',
            'webhook_events_' || to_char(m, '"y"YYYY"m"MM'), m::timestamp AT TIME ZONE 'UTC',
            (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
        m := m + interval '1 month';
    END LOOP;
END $$;
-- +goose StatementEnd

INSERT INTO webhook_events (id, provider, event_id, event_type, source, body, signature, processing_status,
                            error_message, replay_of, created_at)
SELECT id, provider, event_id, event_type, CASE WHEN replay_of IS NULL THEN 'webhook' ELSE 'replay' END,
       convert_to(CASE WHEN jsonb_typeof(payload) = 'string' THEN payload #>> '{}' ELSE payload::text END, 'UTF8'),
       signature, processing_status, error_message, replay_of, created_at
  FROM webhook_events_unpartitioned;
DROP TABLE webhook_events_unpartitioned;

-- +goose Down
ALTER TABLE webhook_events RENAME TO webhook_events_partitioned;
CREATE TABLE webhook_events (
    id                UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    provider          VARCHAR(32)  NOT NULL,
    event_id          VARCHAR(255) NOT NULL,
    event_type        VARCHAR(128) NOT NULL,
    payload           JSONB        NOT NULL,
    signature         TEXT,
    processing_status VARCHAR(32)  NOT NULL DEFAULT 'pending',
    error_message     TEXT,
    created_at        TIMESTAMPTZ  NOT NULL DEFAULT NOW(),
    replay_of         UUID,
    CONSTRAINT ck_webhook_events_processing_status
        CHECK (processing_status IN ('pending', 'processed', 'skipped', 'failed', 'ignored'))
);
-- A body jsonb cannot hold (the reason for the Up) goes back as a JSON string of its escaped text.
-- +goose StatementBegin
DO $$
DECLARE
    r record;
    p jsonb;
BEGIN
    FOR r IN SELECT * FROM webhook_events_partitioned LOOP
        BEGIN
            p := convert_from(r.body, 'UTF8')::jsonb;
        EXCEPTION WHEN OTHERS THEN
            p := to_jsonb(encode(r.body, 'escape'));
        END;
        INSERT INTO webhook_events (id, provider, event_id, event_type, payload, signature, processing_status,
                                    error_message, created_at, replay_of)
        VALUES (r.id, r.provider, r.event_id, r.event_type, p, r.signature, r.processing_status, r.error_message,
                r.created_at, r.replay_of);
    END LOOP;
END $$;
-- +goose StatementEnd
DROP TABLE webhook_events_partitioned;
UPDATE webhook_events SET replay_of = NULL WHERE replay_of NOT IN (SELECT id FROM webhook_events);
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_replay_of_fkey
    FOREIGN KEY (replay_of) REFERENCES webhook_events (id) ON DELETE SET NULL;
CREATE INDEX ix_webhook_events_status_created_at ON webhook_events (processing_status, created_at);
CREATE INDEX ix_webhook_events_provider_event_id ON webhook_events (provider, event_id);
CREATE INDEX ix_webhook_events_created_at ON webhook_events (created_at);
CREATE INDEX ix_webhook_events_replay_of ON webhook_events (replay_of);
