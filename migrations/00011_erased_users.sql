-- Item 11 of the security issue: the tombstones of erased accounts. The hard delete removes the users row (and by cascade
-- the subscriptions and the ledger); this row stays behind so that a very late or replayed Clerk or Paddle
-- event cannot create the user again. It holds no personal data: clerk_id_hash is HMAC-SHA256 keyed with
-- ERASURE_TOMBSTONE_KEY over the Clerk user id, which only the service can recompute from an id it is given.
-- Owned by the account package.

-- +goose Up
CREATE TABLE erased_users (
    clerk_id_hash BYTEA PRIMARY KEY CHECK (octet_length(clerk_id_hash) = 32),
    erased_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE erased_users;
