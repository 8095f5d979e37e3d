-- Security review, items 1 and 3:
--  users.paddle_customer_id   the Paddle customer our own API call created (or found) for the user's verified
--                             email at checkout: the server owns the user <-> customer binding, so the portal
--                             and the customer fallback never trust a customer id a payload hands us;
--  users.email_verified       whether the stored email is one Clerk verified (admin by email needs it; rows
--                             stored before this migration start unverified until Clerk or a session says so);
--  subscriptions.customer_mismatch  a subscription whose customer is not its user's bound customer: recorded
--                             (money was taken) but flagged for the operator, and never offered in the portal.

-- +goose Up
ALTER TABLE users
    ADD COLUMN paddle_customer_id VARCHAR(64),
    ADD COLUMN email_verified     BOOLEAN NOT NULL DEFAULT FALSE,
    ADD CONSTRAINT uq_users_paddle_customer_id UNIQUE (paddle_customer_id);

ALTER TABLE subscriptions ADD COLUMN customer_mismatch BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX ix_subscriptions_customer_mismatch ON subscriptions (created_at) WHERE customer_mismatch;

-- +goose Down
DROP INDEX ix_subscriptions_customer_mismatch;
ALTER TABLE subscriptions DROP COLUMN customer_mismatch;
ALTER TABLE users
    DROP CONSTRAINT uq_users_paddle_customer_id,
    DROP COLUMN email_verified,
    DROP COLUMN paddle_customer_id;
