-- +goose Up
CREATE TABLE users (
    id                       UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    clerk_user_id            VARCHAR(64)  NOT NULL,
    email                    VARCHAR(320) NOT NULL DEFAULT '',
    -- Server-controlled: only Paddle webhooks and the expiry job write it.
    current_tier             VARCHAR(32)  NOT NULL DEFAULT 'free',
    marketing_consent_given  BOOLEAN      NOT NULL DEFAULT FALSE,
    marketing_consent_at     TIMESTAMPTZ,
    marketing_consent_source VARCHAR(64),
    -- Time of the newest Clerk snapshot applied, so an older user.updated delivered late is ignored.
    clerk_synced_at          TIMESTAMPTZ,
    deleted_at               TIMESTAMPTZ,
    created_at               TIMESTAMPTZ  NOT NULL DEFAULT NOW(),
    updated_at               TIMESTAMPTZ  NOT NULL DEFAULT NOW(),
    CONSTRAINT uq_users_clerk_user_id UNIQUE (clerk_user_id)
);

CREATE INDEX ix_users_email ON users (lower(email)) WHERE deleted_at IS NULL;
CREATE INDEX ix_users_deleted_at ON users (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX ix_users_created_at ON users (created_at);

-- +goose Down
DROP TABLE users;
