-- A second live subscription for a user (two tabs, two checkouts) failed on the one-live-per-user unique
-- index on every retry: the user was charged and we never recorded it. An index must not reject money: the
-- subscription is recorded, flagged duplicate_subscription, audited and the operators are alerted.

-- +goose Up
DROP INDEX uq_subscriptions_one_live_per_user;
CREATE INDEX ix_subscriptions_live_user ON subscriptions (user_id) WHERE status IN ('trialing', 'active');
ALTER TABLE subscriptions ADD COLUMN duplicate_subscription BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE subscriptions DROP COLUMN duplicate_subscription;
DROP INDEX ix_subscriptions_live_user;
CREATE UNIQUE INDEX uq_subscriptions_one_live_per_user ON subscriptions (user_id)
    WHERE status IN ('trialing', 'active');
