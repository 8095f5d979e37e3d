-- The append-only credit ledger: the balance is SUM(delta), there is no balance column to drift.

-- +goose Up
CREATE TABLE credit_transactions (
    id         UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    UUID         NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    delta      INTEGER      NOT NULL,
    kind       VARCHAR(32)  NOT NULL,
    job_id     VARCHAR(128) NOT NULL,
    reason     VARCHAR(255) NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ  NOT NULL DEFAULT NOW(),
    -- One logical operation per (job, kind): a repeated grant, deduct or refund is a no-op.
    CONSTRAINT uq_credit_transactions_job_kind UNIQUE (job_id, kind),
    -- The sign of a movement follows from its kind, so a bug cannot grant by "deducting".
    CONSTRAINT ck_credit_transactions_kind_delta CHECK (
        (kind IN ('grant', 'refund', 'reconciler_refund') AND delta > 0)
        OR (kind = 'deduct' AND delta < 0)
        OR (kind IN ('task_completed', 'task_failed') AND delta = 0)
    )
);

CREATE INDEX ix_credit_transactions_user_id_created_at ON credit_transactions (user_id, created_at DESC);
-- The orphan reconciler looks for old deducts.
CREATE INDEX ix_credit_transactions_deduct_created_at ON credit_transactions (created_at) WHERE kind = 'deduct';

-- Append-only: rows may be inserted and (with their user) deleted, never changed.
-- +goose StatementBegin
CREATE FUNCTION credit_transactions_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'credit_transactions is append-only';
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd

CREATE TRIGGER tr_credit_transactions_append_only
    BEFORE UPDATE ON credit_transactions
    FOR EACH ROW EXECUTE FUNCTION credit_transactions_append_only();

-- +goose Down
DROP TABLE credit_transactions;
DROP FUNCTION credit_transactions_append_only();
