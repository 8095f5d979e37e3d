-- The Idempotency-Key convention of the app's own POST endpoints (docs/usage.md, "Idempotency-Key"). The
-- idempotency package owns the table.
--  scope         whose key it is: user:<users.id> for a session, worker:<key fingerprint> for a worker key.
--  request_hash  SHA-256 of the method, the path and the body: the same key with another request is 409.
--  status, content_type, body  the stored response, written in the same transaction as the handler's own
--                effects and the key's claim, so a committed key always has its response, and a replay
--                answers exactly what the first request answered. Only successes are kept: a 4xx or 5xx
--                rolls the claim back with everything else, so the key may be retried.
-- Kept for USAGE_DEDUP_WINDOW; user_id cascades with an erased user (a response may hold their data).

-- +goose Up
CREATE TABLE idempotency_keys (
    scope        VARCHAR(80)  NOT NULL,
    key          VARCHAR(255) NOT NULL,
    user_id      UUID         REFERENCES users (id) ON DELETE CASCADE,
    request_hash BYTEA        NOT NULL,
    status       SMALLINT,
    content_type VARCHAR(255),
    body         BYTEA,
    created_at   TIMESTAMPTZ  NOT NULL,
    CONSTRAINT pk_idempotency_keys PRIMARY KEY (scope, key)
);
CREATE INDEX ix_idempotency_keys_user_id ON idempotency_keys (user_id);
CREATE INDEX ix_idempotency_keys_created_at ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
