-- Who did what, kept indefinitely (GDPR Art. 30). user_id is deliberately not a foreign key: the record of
-- an erasure must outlive the erased user.

-- +goose Up
CREATE TABLE audit_logs (
    id            UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    actor         VARCHAR(128) NOT NULL,
    action        VARCHAR(64)  NOT NULL,
    user_id       UUID,
    resource_type VARCHAR(64)  NOT NULL DEFAULT '',
    resource_id   VARCHAR(255) NOT NULL DEFAULT '',
    -- A curated allow-list of fields per action, never a whole payload.
    details       JSONB        NOT NULL DEFAULT '{}'::jsonb,
    ip            INET,
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT NOW()
);

CREATE INDEX ix_audit_logs_user_id_created_at ON audit_logs (user_id, created_at DESC);
CREATE INDEX ix_audit_logs_action_created_at ON audit_logs (action, created_at DESC);
CREATE INDEX ix_audit_logs_created_at ON audit_logs (created_at DESC);

-- +goose Down
DROP TABLE audit_logs;
