-- Security issue, item 4: job ids belong to a user, and each deduct carries its own orphan deadline.
--  uq_credit_transactions_user_job_kind  replaces UNIQUE(job_id, kind): two users may use the same job id
--                                        for different jobs, so one can neither squat nor probe another's ids;
--  expires_at                            when the reconciler may refund a deduct that has no outcome (the
--                                        spend's expires_in); set at insert, deducts only;
--  ix_credit_transactions_deduct_expires_at  the reconciler's scan (replaces the created_at one).
-- Existing deducts get the old fixed window, created_at + 5 minutes. The table is append-only, so the
-- backfill runs with the UPDATE trigger disabled; ALTER TABLE holds an exclusive lock until the migration
-- commits, so no other write can slip past the disabled trigger.

-- +goose Up
ALTER TABLE credit_transactions
    DROP CONSTRAINT uq_credit_transactions_job_kind,
    ADD CONSTRAINT uq_credit_transactions_user_job_kind UNIQUE (user_id, job_id, kind),
    ADD COLUMN expires_at TIMESTAMPTZ;

ALTER TABLE credit_transactions DISABLE TRIGGER tr_credit_transactions_append_only;
UPDATE credit_transactions SET expires_at = created_at + interval '5 minutes' WHERE kind = 'deduct';
ALTER TABLE credit_transactions ENABLE TRIGGER tr_credit_transactions_append_only;

-- Every deduct has a deadline, and nothing else has one.
ALTER TABLE credit_transactions ADD CONSTRAINT ck_credit_transactions_deduct_expires_at
    CHECK ((kind = 'deduct') = (expires_at IS NOT NULL));

DROP INDEX ix_credit_transactions_deduct_created_at;
CREATE INDEX ix_credit_transactions_deduct_expires_at ON credit_transactions (expires_at) WHERE kind = 'deduct';

-- +goose Down
-- Fails with a unique violation once two users have used one job id: the old constraint cannot hold
-- that ledger, and ledger rows are never deleted to make it fit.
DROP INDEX ix_credit_transactions_deduct_expires_at;
CREATE INDEX ix_credit_transactions_deduct_created_at ON credit_transactions (created_at) WHERE kind = 'deduct';
ALTER TABLE credit_transactions
    DROP CONSTRAINT ck_credit_transactions_deduct_expires_at,
    DROP CONSTRAINT uq_credit_transactions_user_job_kind,
    ADD CONSTRAINT uq_credit_transactions_job_kind UNIQUE (job_id, kind),
    DROP COLUMN expires_at;
