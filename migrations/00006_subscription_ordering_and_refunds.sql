-- Billing needs three more facts per subscription:
--  last_event_id       breaks ties between snapshots with the same occurred_at, so the final state does not
--                      depend on arrival order (Paddle sends subscription.created and .activated with equal
--                      occurred_at, concurrently, in either order);
--  last_transaction_id the transaction that paid the current period, so a full refund of it can revoke access;
--  access_revoked_at   set by that refund; tier syncs keep the user on free until a new period is paid.

-- +goose Up
ALTER TABLE subscriptions
    ADD COLUMN last_event_id       VARCHAR(255) NOT NULL DEFAULT '',
    ADD COLUMN last_transaction_id VARCHAR(64),
    ADD COLUMN access_revoked_at   TIMESTAMPTZ;

-- +goose Down
ALTER TABLE subscriptions
    DROP COLUMN last_event_id,
    DROP COLUMN last_transaction_id,
    DROP COLUMN access_revoked_at;
