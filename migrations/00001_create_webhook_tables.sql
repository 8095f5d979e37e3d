-- The two-table idempotency pattern (docs/webhooks.md).
-- processed_webhook_events is the dedup claim: small, hot, kept forever.
-- webhook_events is the archive of every verified delivery: large, cold, purged after the retention window.

-- +goose Up
CREATE TABLE processed_webhook_events (
    id           UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    provider     VARCHAR(32)  NOT NULL,
    event_id     VARCHAR(255) NOT NULL,
    event_type   VARCHAR(128) NOT NULL,
    processed_at TIMESTAMPTZ  NOT NULL DEFAULT NOW(),
    CONSTRAINT uq_processed_webhook_events_provider_event_id UNIQUE (provider, event_id)
);

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
    CONSTRAINT ck_webhook_events_processing_status
        CHECK (processing_status IN ('pending', 'processed', 'skipped', 'failed', 'ignored'))
);

-- Forensics: "what failed in the last day" and "every delivery of this event".
CREATE INDEX ix_webhook_events_status_created_at ON webhook_events (processing_status, created_at);
CREATE INDEX ix_webhook_events_provider_event_id ON webhook_events (provider, event_id);
-- The retention purge deletes by age in batches.
CREATE INDEX ix_webhook_events_created_at ON webhook_events (created_at);

-- +goose Down
DROP TABLE webhook_events;
DROP TABLE processed_webhook_events;
