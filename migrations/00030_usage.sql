-- Usage metering (docs/usage.md). The usage package owns these tables.
--  usage_claims         the dedup claim of every recorded event: PRIMARY KEY(user_id, key). The claim, the
--                       counter and any credit charge commit in one transaction, so an event counts once or
--                       not at all. Kept for USAGE_DEDUP_WINDOW after the event's occurred_at; older events
--                       are refused, so a duplicate can never arrive after its claim is gone. A refused
--                       event (limit, credits, disabled) leaves no claim: its retry is decided again.
--  usage_counters       one row per (user, feature, usage month): the sum of the month's recorded events,
--                       maintained in the event's transaction. The row is the lock, and the block check is
--                       one conditional upsert. limit_value is the limit that applied to the last event (the
--                       console's "nearest their limits").
--  usage_events         every recorded event, range-partitioned by month of occurred_at (retention drops
--                       whole partitions, as the webhook archive does). Forensics and history only:
--                       decisions never read it.
--  usage_gauges         a gauge's current value per (user, feature): the newest set by occurred_at wins.
--  usage_notifications  one row per (user, feature, usage month, threshold): 80 % and 100 % of a limit, and
--                       the low credit balance (feature ''). Inserted in the crossing event's transaction;
--                       notified_at marks its delivery (audit row, email, hooks), done exactly once.

-- +goose Up
CREATE TABLE usage_claims (
    user_id      UUID         NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    key          VARCHAR(120) NOT NULL,
    event_id     UUID         NOT NULL,
    feature      VARCHAR(63)  NOT NULL,
    kind         VARCHAR(16)  NOT NULL,
    quantity     BIGINT       NOT NULL,
    period_start TIMESTAMPTZ  NOT NULL,
    occurred_at  TIMESTAMPTZ  NOT NULL,
    created_at   TIMESTAMPTZ  NOT NULL,
    CONSTRAINT pk_usage_claims PRIMARY KEY (user_id, key),
    CONSTRAINT ck_usage_claims_kind CHECK (kind IN ('usage', 'gauge', 'reserved')),
    CONSTRAINT ck_usage_claims_quantity CHECK (quantity >= 0)
);
CREATE INDEX ix_usage_claims_occurred_at ON usage_claims (occurred_at);

-- fillfactor leaves room on each page for HOT updates of a busy counter (no indexed column changes).
CREATE TABLE usage_counters (
    user_id      UUID        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    feature      VARCHAR(63) NOT NULL,
    period_start TIMESTAMPTZ NOT NULL,
    period_end   TIMESTAMPTZ NOT NULL,
    used         BIGINT      NOT NULL,
    limit_value  BIGINT,
    updated_at   TIMESTAMPTZ NOT NULL,
    CONSTRAINT pk_usage_counters PRIMARY KEY (user_id, feature, period_start),
    CONSTRAINT ck_usage_counters_used CHECK (used >= 0),
    CONSTRAINT ck_usage_counters_period CHECK (period_end > period_start)
) WITH (fillfactor = 80);
CREATE INDEX ix_usage_counters_period_end ON usage_counters (period_end);

CREATE TABLE usage_events (
    id           UUID         NOT NULL,
    user_id      UUID         NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    feature      VARCHAR(63)  NOT NULL,
    kind         VARCHAR(16)  NOT NULL,
    quantity     BIGINT       NOT NULL,
    key          VARCHAR(120) NOT NULL,
    period_start TIMESTAMPTZ  NOT NULL,
    occurred_at  TIMESTAMPTZ  NOT NULL,
    created_at   TIMESTAMPTZ  NOT NULL,
    CONSTRAINT pk_usage_events PRIMARY KEY (occurred_at, id),
    CONSTRAINT ck_usage_events_kind CHECK (kind IN ('usage', 'gauge'))
) PARTITION BY RANGE (occurred_at);
-- A user's history (the console), and the foreign key's index.
CREATE INDEX ix_usage_events_user_id ON usage_events (user_id, feature, occurred_at);

-- Partitions from two months back (events are accepted up to USAGE_DEDUP_WINDOW old) through three
-- ahead; the usage-partitions task keeps creating them (usage.EnsurePartitions, same names).
-- +goose StatementBegin
DO $$
DECLARE
    m date := date_trunc('month', now() AT TIME ZONE 'UTC') - interval '2 months';
BEGIN
    WHILE m <= date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months' LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF usage_events FOR VALUES FROM (%L) TO (%L)',
            'usage_events_' || to_char(m, '"y"YYYY"m"MM'), m::timestamp AT TIME ZONE 'UTC',
            (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
        m := m + interval '1 month';
    END LOOP;
END $$;
-- +goose StatementEnd

CREATE TABLE usage_gauges (
    user_id    UUID        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    feature    VARCHAR(63) NOT NULL,
    value      BIGINT      NOT NULL,
    set_at     TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    CONSTRAINT pk_usage_gauges PRIMARY KEY (user_id, feature),
    CONSTRAINT ck_usage_gauges_value CHECK (value >= 0)
);

CREATE TABLE usage_notifications (
    id           UUID        NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
    user_id      UUID        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    feature      VARCHAR(63) NOT NULL,
    period_start TIMESTAMPTZ NOT NULL,
    threshold    VARCHAR(16) NOT NULL,
    used         BIGINT      NOT NULL,
    limit_value  BIGINT      NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    notified_at  TIMESTAMPTZ,
    CONSTRAINT uq_usage_notifications UNIQUE (user_id, feature, period_start, threshold),
    CONSTRAINT ck_usage_notifications_threshold CHECK (threshold IN ('limit_80', 'limit_100', 'low_balance'))
);
CREATE INDEX ix_usage_notifications_pending ON usage_notifications (created_at) WHERE notified_at IS NULL;

-- +goose Down
DROP TABLE usage_notifications;
DROP TABLE usage_gauges;
DROP TABLE usage_events;
DROP TABLE usage_counters;
DROP TABLE usage_claims;
