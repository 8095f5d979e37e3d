-- Real Paddle subscriptions carry several items (the plan, add-ons, one-time charges) with quantities, amounts
-- and billing cycles, and credits are now a monthly allowance whatever the billing interval:
--  subscription_items         the items of the newest applied snapshot, replaced as a set with it; tiered marks
--                             the one item whose price decided the tier;
--  subscriptions.quantity     the tiered item's quantity (seats);
--  subscriptions.currency_code, .discount   what the payload says the customer pays in, and its discount
--                             (Paddle's subscription payload carries no discount amount);
--  subscriptions.next_grant_at  the start of the next month of the current period the monthly-grants job must
--                             look at; NULL when there is none, so the job reads only what is due.

-- +goose Up
CREATE TABLE subscription_items (
    id                UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    subscription_id   UUID        NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    -- Position in the payload's items, which Paddle does not order (an add-on may come first).
    position          INTEGER     NOT NULL CHECK (position >= 0),
    price_id          VARCHAR(64) NOT NULL,
    product_id        VARCHAR(64) NOT NULL DEFAULT '',
    quantity          INTEGER     NOT NULL CHECK (quantity >= 0),
    -- The price's unit amount in minor units and its currency; NULL when the payload has none.
    unit_amount       BIGINT CHECK (unit_amount >= 0),
    currency          VARCHAR(3),
    -- NULL for a one-time (non-recurring) item.
    billing_interval  VARCHAR(8) CHECK (billing_interval IN ('day', 'week', 'month', 'year')),
    billing_frequency INTEGER CHECK (billing_frequency > 0),
    recurring         BOOLEAN     NOT NULL,
    status            VARCHAR(16) NOT NULL DEFAULT '',
    tiered            BOOLEAN     NOT NULL DEFAULT FALSE,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    -- Also the index of the foreign key.
    CONSTRAINT uq_subscription_items_position UNIQUE (subscription_id, position)
);
-- One item decides the tier.
CREATE UNIQUE INDEX uq_subscription_items_one_tiered ON subscription_items (subscription_id) WHERE tiered;

ALTER TABLE subscriptions
    ADD COLUMN quantity      INTEGER    NOT NULL DEFAULT 1 CHECK (quantity >= 0),
    ADD COLUMN currency_code VARCHAR(3) NOT NULL DEFAULT '',
    ADD COLUMN discount      JSONB,
    ADD COLUMN next_grant_at TIMESTAMPTZ;
CREATE INDEX ix_subscriptions_next_grant_at ON subscriptions (next_grant_at) WHERE next_grant_at IS NOT NULL;

-- Rows from before: their one known item is the tiered price, quantity 1, amount unknown (the tiers file's
-- amount, if any, stands in until the next snapshot brings the real items).
INSERT INTO subscription_items (subscription_id, position, price_id, quantity, recurring, tiered)
SELECT id, 0, paddle_price_id, 1, TRUE, TRUE FROM subscriptions WHERE paddle_price_id <> '';

-- Monthly grants start at the next month boundary of each live period: no retroactive grants for months a
-- yearly subscriber's one grant per period already covered. Months are counted from the period's start in
-- UTC (Postgres clamps Jan 31 + 1 month to Feb 28/29, as the service does).
UPDATE subscriptions SET next_grant_at = (
    SELECT m FROM (SELECT (current_period_start AT TIME ZONE 'UTC' + make_interval(months => k)) AT TIME ZONE 'UTC' AS m
                     FROM generate_series(1, 1200) AS k) months
     WHERE m > now() ORDER BY m LIMIT 1)
 WHERE status IN ('active', 'past_due', 'paused') AND current_period_start IS NOT NULL AND current_period_end > now();
UPDATE subscriptions SET next_grant_at = NULL WHERE next_grant_at >= current_period_end;

-- +goose Down
DROP INDEX ix_subscriptions_next_grant_at;
ALTER TABLE subscriptions
    DROP COLUMN next_grant_at,
    DROP COLUMN discount,
    DROP COLUMN currency_code,
    DROP COLUMN quantity;
DROP TABLE subscription_items;
