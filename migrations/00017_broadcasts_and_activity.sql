-- Broadcasts (admin-composed mail to an audience) and the admin metrics overview (issue 12):
--  broadcast_runs          one composed broadcast: template, subject, Markdown body, audience, kind and its
--                          lifecycle (queued -> sending -> finished, or failed when its dispatch gave up).
--                          A CHECK makes a marketing run that bypasses consent impossible.
--  broadcast_recipients    one row per recipient of a run. UNIQUE(run_id, user_id) is the uniqueness key of a
--                          send: two dispatchers, a second "send" or a resumed crash insert a recipient at most
--                          once, one sender at a time claims it (claimed_until) and settles it only
--                          WHERE status = 'pending'. user_id is SET NULL when the user is erased (the row
--                          stays as the run's history).
--  users.last_seen_at      written at most once an hour per user by authenticated requests (DAU/WAU/MAU).
--  indexes                 for the overview's 30-day windows: last_seen_at, the ledger by (kind, created_at),
--                          cancellations by canceled_at, recipients by the time they were settled.

-- +goose Up
ALTER TABLE users ADD COLUMN last_seen_at TIMESTAMPTZ;
CREATE INDEX ix_users_last_seen_at ON users (last_seen_at) WHERE last_seen_at IS NOT NULL;

CREATE INDEX ix_credit_transactions_kind_created_at ON credit_transactions (kind, created_at);
CREATE INDEX ix_subscriptions_canceled_at ON subscriptions (canceled_at) WHERE canceled_at IS NOT NULL;

CREATE TABLE broadcast_runs (
    id             UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    template       VARCHAR(64)  NOT NULL,
    subject        VARCHAR(200) NOT NULL,
    body_markdown  TEXT         NOT NULL DEFAULT '',
    -- {"tier": "pro"}; {} is every live user with an address.
    audience       JSONB        NOT NULL DEFAULT '{}'::jsonb,
    kind           VARCHAR(16)  NOT NULL,
    bypass_consent BOOLEAN      NOT NULL DEFAULT FALSE,
    status         VARCHAR(16)  NOT NULL DEFAULT 'queued',
    -- The audit actor who composed it ("admin:<email>").
    created_by     VARCHAR(128) NOT NULL,
    created_at     TIMESTAMPTZ  NOT NULL DEFAULT NOW(),
    started_at     TIMESTAMPTZ,
    -- Set when the dispatcher has inserted every recipient: the run can finish only after it.
    dispatched_at  TIMESTAMPTZ,
    finished_at    TIMESTAMPTZ,
    CONSTRAINT ck_broadcast_runs_kind CHECK (kind IN ('marketing', 'transactional')),
    CONSTRAINT ck_broadcast_runs_status CHECK (status IN ('queued', 'sending', 'finished', 'failed')),
    -- Marketing mail needs consent, always.
    CONSTRAINT ck_broadcast_runs_marketing_consent CHECK (kind <> 'marketing' OR NOT bypass_consent)
);
CREATE INDEX ix_broadcast_runs_created_at ON broadcast_runs (created_at);

CREATE TABLE broadcast_recipients (
    id          UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    run_id      UUID        NOT NULL REFERENCES broadcast_runs (id) ON DELETE CASCADE,
    user_id     UUID        REFERENCES users (id) ON DELETE SET NULL,
    status      VARCHAR(16) NOT NULL DEFAULT 'pending',
    -- Why a recipient was skipped or failed (no_consent, unsubscribed, deleted, no_address, permanent, ...).
    reason      VARCHAR(64),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    sent_at     TIMESTAMPTZ,
    -- A sender's claim while it mails the recipient: one sender at a time, whatever the queue does; a
    -- crashed sender's claim lapses.
    claimed_until TIMESTAMPTZ,
    -- When the recipient left pending (sent, skipped or failed).
    finished_at TIMESTAMPTZ,
    CONSTRAINT uq_broadcast_recipients_run_user UNIQUE (run_id, user_id),
    CONSTRAINT ck_broadcast_recipients_status CHECK (status IN ('pending', 'sent', 'skipped', 'failed')),
    CONSTRAINT ck_broadcast_recipients_settled CHECK ((status = 'pending') = (finished_at IS NULL))
);
CREATE INDEX ix_broadcast_recipients_user_id ON broadcast_recipients (user_id);
-- "Is anything of this run still pending?" on every settle, without counting the run.
CREATE INDEX ix_broadcast_recipients_pending ON broadcast_recipients (run_id) WHERE status = 'pending';
CREATE INDEX ix_broadcast_recipients_finished_at ON broadcast_recipients (finished_at) WHERE finished_at IS NOT NULL;

-- +goose Down
DROP TABLE broadcast_recipients;
DROP TABLE broadcast_runs;
DROP INDEX ix_subscriptions_canceled_at;
DROP INDEX ix_credit_transactions_kind_created_at;
DROP INDEX ix_users_last_seen_at;
ALTER TABLE users DROP COLUMN last_seen_at;
