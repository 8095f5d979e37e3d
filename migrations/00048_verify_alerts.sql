-- What the daily `verify` job has told the operators: one row per violation it found, keyed by the check
-- and the violation's subject (a user, a bucket, a claim), so each violation is mailed once however many
-- daily runs still find it. A violation that a later run no longer finds is marked resolved; if it comes
-- back, it is new again and mailed again. The job never fixes anything: this table is its only write
-- besides the alert emails' jobs (docs/operations.md, *Verify*).

-- +goose Up
CREATE TABLE verify_alerts (
    check_name    VARCHAR(128) NOT NULL,
    subject       TEXT         NOT NULL,
    -- What the first run that found it said (expected vs found).
    detail        TEXT         NOT NULL,
    first_seen_at TIMESTAMPTZ  NOT NULL,
    last_seen_at  TIMESTAMPTZ  NOT NULL,
    -- The first run that no longer found it; NULL while it lasts.
    resolved_at   TIMESTAMPTZ,
    CONSTRAINT pk_verify_alerts PRIMARY KEY (check_name, subject)
);

-- +goose Down
DROP TABLE verify_alerts;
