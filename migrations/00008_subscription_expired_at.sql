-- The hourly expiry job marks each canceled subscription once it has applied the end of its paid period
-- to the user's tier, so a run reads what expired since the last run instead of every cancellation ever.

-- +goose Up
ALTER TABLE subscriptions ADD COLUMN expired_at TIMESTAMPTZ;
-- Rows the job still has to look at.
DROP INDEX ix_subscriptions_canceled_period_end;
CREATE INDEX ix_subscriptions_canceled_period_end ON subscriptions (current_period_end)
    WHERE status = 'canceled' AND expired_at IS NULL;

-- +goose Down
DROP INDEX ix_subscriptions_canceled_period_end;
CREATE INDEX ix_subscriptions_canceled_period_end ON subscriptions (current_period_end)
    WHERE status = 'canceled';
ALTER TABLE subscriptions DROP COLUMN expired_at;
