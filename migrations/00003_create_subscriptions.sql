-- A mirror of Paddle's subscriptions: Paddle is the source of truth, webhooks drive every change.

-- +goose Up
CREATE TABLE subscriptions (
    id                     UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id                UUID        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    paddle_subscription_id VARCHAR(64) NOT NULL,
    paddle_customer_id     VARCHAR(64) NOT NULL DEFAULT '',
    paddle_price_id        VARCHAR(64) NOT NULL DEFAULT '',
    tier                   VARCHAR(32) NOT NULL,
    -- Paddle's own spelling (American "canceled"); anything else is a bug.
    status                 VARCHAR(32) NOT NULL,
    current_period_start   TIMESTAMPTZ,
    current_period_end     TIMESTAMPTZ,
    canceled_at            TIMESTAMPTZ,
    scheduled_change       JSONB,
    -- occurred_at of the newest snapshot applied: Paddle does not guarantee delivery order.
    last_event_at          TIMESTAMPTZ NOT NULL,
    created_at             TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    updated_at             TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    CONSTRAINT uq_subscriptions_paddle_subscription_id UNIQUE (paddle_subscription_id),
    CONSTRAINT ck_subscriptions_status
        CHECK (status IN ('trialing', 'active', 'past_due', 'paused', 'canceled'))
);

CREATE INDEX ix_subscriptions_user_id ON subscriptions (user_id);
CREATE INDEX ix_subscriptions_paddle_customer_id ON subscriptions (paddle_customer_id);
-- At most one live subscription per user.
CREATE UNIQUE INDEX uq_subscriptions_one_live_per_user ON subscriptions (user_id)
    WHERE status IN ('trialing', 'active');
-- The hourly expiry job scans canceled subscriptions by period end.
CREATE INDEX ix_subscriptions_canceled_period_end ON subscriptions (current_period_end)
    WHERE status = 'canceled';

-- +goose Down
DROP TABLE subscriptions;
