-- A job the reconciler refunded as orphaned can still be reported completed: the work was delivered, so it
-- is charged again with a `recharge` movement (negative, like a deduct, but with no orphan deadline: it is
-- final). A recharge may take the balance below zero; spends are then refused until it is covered again.

-- +goose Up
ALTER TABLE credit_transactions DROP CONSTRAINT ck_credit_transactions_kind_delta;
ALTER TABLE credit_transactions ADD CONSTRAINT ck_credit_transactions_kind_delta CHECK (
    (kind IN ('grant', 'refund', 'reconciler_refund') AND delta > 0)
    OR (kind IN ('deduct', 'recharge') AND delta < 0)
    OR (kind IN ('task_completed', 'task_failed') AND delta = 0)
);

-- +goose Down
-- NOT VALID: movements of the kinds this migration added stay as they are (ledger rows are never deleted or
-- rewritten, and the older code's SUM(delta) still counts them right); only new rows must fit the old kinds.
ALTER TABLE credit_transactions DROP CONSTRAINT ck_credit_transactions_kind_delta;
ALTER TABLE credit_transactions ADD CONSTRAINT ck_credit_transactions_kind_delta CHECK (
    (kind IN ('grant', 'refund', 'reconciler_refund') AND delta > 0)
    OR (kind = 'deduct' AND delta < 0)
    OR (kind IN ('task_completed', 'task_failed') AND delta = 0)
) NOT VALID;
