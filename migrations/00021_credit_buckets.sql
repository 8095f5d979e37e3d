-- Balances in constant time, and credits that expire, burn in order and roll over.
--
-- credit_transactions stays the truth: every movement, append-only, with its idempotency key. Next to it,
-- derived state maintained in the same transaction as each movement (docs/billing.md, Credits):
--  credit_balances     one row per user: the balance (SUM of the user's movements) and the earliest time a
--                      bucket with credits left may expire. It is also the per-user lock: every movement of
--                      a user updates it first, so a spend is one conditional UPDATE instead of a lock plus
--                      a SUM over the whole history.
--  credit_buckets      one per grant (and per refund that cannot go back where it came from): amount,
--                      remaining, expiry, priority, category (allowance, purchased, promotional; debt for what
--                      a completed job still owes after its orphan refund). remaining is derived.
--  credit_allocations  append-only: which buckets each movement took from or gave to. A bucket's remaining
--                      is the sum of its allocations; a movement's allocations sum to its delta.
-- `fabrica verify ledger` recomputes all three from the movements.
--
-- Existing ledgers are carried over: each grant becomes a bucket that never expires (a sign-up or other
-- grant is promotional, a subscription month's is allowance, tagged with its subscription), and what the
-- user has consumed since (every other movement, net) is taken from those buckets in burn order by one
-- opening allocation per bucket. Movements written before this migration have no allocations of their own
-- (allocated = false); every later one has.

-- +goose Up
ALTER TABLE credit_transactions ADD COLUMN allocated BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE credit_transactions ALTER COLUMN allocated SET DEFAULT true;

ALTER TABLE credit_transactions DROP CONSTRAINT ck_credit_transactions_kind_delta;
ALTER TABLE credit_transactions ADD CONSTRAINT ck_credit_transactions_kind_delta CHECK (
    (kind IN ('grant', 'refund', 'reconciler_refund', 'rollover') AND delta > 0)
    OR (kind IN ('deduct', 'recharge', 'charge', 'correction', 'expire') AND delta < 0)
    OR (kind IN ('task_completed', 'task_failed', 'settle') AND delta = 0)
);

-- A subscription month's grants are read by key prefix on every grant (billing's top-ups): a user's grants
-- are few, so this keeps the read off the user's deducts however many there are.
CREATE INDEX ix_credit_transactions_user_grants ON credit_transactions (user_id) WHERE kind = 'grant';

CREATE TABLE credit_balances (
    user_id        UUID PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    balance        BIGINT      NOT NULL DEFAULT 0,
    -- No bucket with credits left expires before this (it may be earlier than the true minimum; a spend
    -- that finds it passed expires what is due and recomputes it). NULL: none expires.
    next_expiry_at TIMESTAMPTZ,
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE credit_buckets (
    id         UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    UUID         NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    category   VARCHAR(16)  NOT NULL CHECK (category IN ('allowance', 'purchased', 'promotional', 'debt')),
    -- Lower burns first (0-100), as Stripe's and OpenMeter's grants.
    priority   SMALLINT     NOT NULL DEFAULT 50 CHECK (priority BETWEEN 0 AND 100),
    amount     INTEGER      NOT NULL CHECK (amount >= 0),
    remaining  INTEGER      NOT NULL,
    expires_at TIMESTAMPTZ,
    -- What the bucket belongs to: an allowance's subscription, a pack's transaction ('' for none).
    source     VARCHAR(128) NOT NULL DEFAULT '',
    -- The movement that created it (NULL: carried over by this migration, or the debt bucket).
    grant_id   UUID REFERENCES credit_transactions (id) ON DELETE CASCADE,
    -- When its unspent remainder was expired (then remaining is 0 for good).
    expired_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ  NOT NULL DEFAULT now(),
    CONSTRAINT ck_credit_buckets_remaining CHECK (
        CASE WHEN category = 'debt' THEN remaining <= 0 ELSE remaining BETWEEN 0 AND amount END),
    CONSTRAINT uq_credit_buckets_grant_id UNIQUE (grant_id)
);
CREATE INDEX ix_credit_buckets_user_id ON credit_buckets (user_id);
-- A pack's refund finds its bucket by the transaction it came from.
CREATE INDEX ix_credit_buckets_source ON credit_buckets (source) WHERE source <> '';
-- The expiry job's scan: buckets with credits left whose time has come, soonest first.
CREATE INDEX ix_credit_buckets_due ON credit_buckets (expires_at) WHERE remaining > 0 AND expires_at IS NOT NULL;
-- One debt bucket per user.
CREATE UNIQUE INDEX uq_credit_buckets_debt ON credit_buckets (user_id) WHERE category = 'debt';

CREATE TABLE credit_allocations (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- NULL: the opening allocation this migration wrote for a ledger carried over.
    movement_id UUID    REFERENCES credit_transactions (id) ON DELETE CASCADE,
    bucket_id   UUID    NOT NULL REFERENCES credit_buckets (id) ON DELETE CASCADE,
    delta       INTEGER NOT NULL CHECK (delta <> 0)
);
CREATE INDEX ix_credit_allocations_movement_id ON credit_allocations (movement_id);
CREATE INDEX ix_credit_allocations_bucket_id ON credit_allocations (bucket_id);

-- +goose StatementBegin
CREATE FUNCTION credit_allocations_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'credit_allocations is append-only';
END;
$$ LANGUAGE plpgsql;
-- +goose StatementEnd
CREATE TRIGGER tr_credit_allocations_append_only
    BEFORE UPDATE ON credit_allocations
    FOR EACH ROW EXECUTE FUNCTION credit_allocations_append_only();

-- The carry-over. Burn order without priorities or expiries: promotional before allowance, then oldest.
CREATE TEMPORARY TABLE legacy_buckets ON COMMIT DROP AS
WITH consumed AS (
    SELECT user_id, -coalesce(sum(delta) FILTER (WHERE kind <> 'grant'), 0) AS consumed
      FROM credit_transactions GROUP BY user_id
), grants AS (
    SELECT t.id AS grant_id, t.user_id, t.delta AS amount, t.created_at,
           CASE WHEN starts_with(t.job_id, 'grant:') THEN 'allowance' ELSE 'promotional' END AS category,
           CASE WHEN starts_with(t.job_id, 'grant:') THEN left(split_part(t.job_id, ':', 2), 128) ELSE '' END AS source
      FROM credit_transactions t WHERE t.kind = 'grant'
), ordered AS (
    SELECT g.*, c.consumed,
           coalesce(sum(g.amount) OVER (PARTITION BY g.user_id
               ORDER BY (g.category = 'allowance'), g.created_at, g.grant_id
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
      FROM grants g JOIN consumed c USING (user_id)
)
SELECT gen_random_uuid() AS id, grant_id, user_id, amount, created_at, category, source,
       amount - least(amount, greatest(consumed - before, 0)) AS remaining
  FROM ordered;

INSERT INTO credit_buckets (id, user_id, category, amount, remaining, source, grant_id, created_at)
SELECT id, user_id, category, amount, remaining, source, grant_id, created_at FROM legacy_buckets;
INSERT INTO credit_allocations (movement_id, bucket_id, delta)
SELECT grant_id, id, amount FROM legacy_buckets;
INSERT INTO credit_allocations (movement_id, bucket_id, delta)
SELECT NULL, id, remaining - amount FROM legacy_buckets WHERE remaining < amount;

-- What was consumed beyond every grant (a job charged again after its orphan refund) is the user's debt.
WITH short AS (
    SELECT user_id, sum(delta) AS balance FROM credit_transactions GROUP BY user_id HAVING sum(delta) < 0
), debt AS (
    INSERT INTO credit_buckets (user_id, category, amount, remaining)
    SELECT user_id, 'debt', 0, balance FROM short
    RETURNING id, remaining
)
INSERT INTO credit_allocations (movement_id, bucket_id, delta) SELECT NULL, id, remaining FROM debt;

INSERT INTO credit_balances (user_id, balance)
SELECT user_id, sum(delta) FROM credit_transactions GROUP BY user_id;

-- +goose Down
DROP TABLE credit_allocations;
DROP FUNCTION credit_allocations_append_only();
DROP TABLE credit_buckets;
DROP TABLE credit_balances;
DROP INDEX ix_credit_transactions_user_grants;
-- NOT VALID: movements of the kinds this migration added stay as they are (ledger rows are never deleted or
-- rewritten, and the older code's SUM(delta) still counts them right); only new rows must fit the old kinds.
ALTER TABLE credit_transactions DROP CONSTRAINT ck_credit_transactions_kind_delta;
ALTER TABLE credit_transactions ADD CONSTRAINT ck_credit_transactions_kind_delta CHECK (
    (kind IN ('grant', 'refund', 'reconciler_refund') AND delta > 0)
    OR (kind IN ('deduct', 'recharge') AND delta < 0)
    OR (kind IN ('task_completed', 'task_failed') AND delta = 0)
) NOT VALID;
ALTER TABLE credit_transactions DROP COLUMN allocated;
