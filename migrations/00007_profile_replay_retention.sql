-- Issue 5's account, admin and jobs surface:
--  users.display_name / users.locale  the fields PATCH /me may change (an allow-list; never tier, email or credits);
--  webhook_events.replay_of           links an admin replay to the failed delivery it re-ran;
--  ix_credit_transactions_created_at  the ledger metrics look at recent movements by time.

-- +goose Up
ALTER TABLE users
    ADD COLUMN display_name VARCHAR(100),
    ADD COLUMN locale       VARCHAR(16);

ALTER TABLE webhook_events
    ADD COLUMN replay_of UUID REFERENCES webhook_events (id) ON DELETE SET NULL;
CREATE INDEX ix_webhook_events_replay_of ON webhook_events (replay_of);

CREATE INDEX ix_credit_transactions_created_at ON credit_transactions (created_at);

-- +goose Down
DROP INDEX ix_credit_transactions_created_at;
DROP INDEX ix_webhook_events_replay_of;
ALTER TABLE webhook_events DROP COLUMN replay_of;
ALTER TABLE users
    DROP COLUMN display_name,
    DROP COLUMN locale;
