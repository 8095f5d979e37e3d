-- Acquisition, sign-up hooks, disposable emails and feedback (issue: parity with the original, account side).
--
-- users gains the first-touch attribution (one column per field; signup_metadata_at says it was recorded,
-- and a single UPDATE ... WHERE signup_metadata_at IS NULL decides the first write), the marker of the
-- sign-up hooks (signup_completed_at: user.created ran them, once per user), and the disposable-email flag.
-- Lengths are the API's limits (VARCHAR counts characters, as the validation does).

-- +goose Up
ALTER TABLE users
    ADD COLUMN signup_utm_source VARCHAR(255),
    ADD COLUMN signup_utm_medium VARCHAR(255),
    ADD COLUMN signup_utm_campaign VARCHAR(255),
    ADD COLUMN signup_utm_term VARCHAR(255),
    ADD COLUMN signup_utm_content VARCHAR(255),
    ADD COLUMN signup_referrer VARCHAR(2048),
    ADD COLUMN signup_landing_page VARCHAR(2048),
    ADD COLUMN signup_metadata_at TIMESTAMPTZ,
    ADD COLUMN signup_completed_at TIMESTAMPTZ,
    ADD COLUMN disposable_email BOOLEAN NOT NULL DEFAULT FALSE;

-- Users who already had their signup grant (and so their welcome) before the hooks existed have had their
-- sign-up: a late or replayed user.created must not run the hooks for them again.
UPDATE users u SET signup_completed_at = u.created_at
 WHERE EXISTS (SELECT 1 FROM credit_transactions c
                WHERE c.user_id = u.id AND c.kind = 'grant' AND c.job_id = 'signup:' || u.clerk_user_id);

-- The remote copy of the disposable-email blocklist (DISPOSABLE_DOMAINS_URL), shared by every instance. While
-- it is empty the list embedded in the binary applies; a refresh replaces the whole set in one transaction.
CREATE TABLE disposable_domains (
    domain TEXT PRIMARY KEY CHECK (domain = lower(domain) AND length(domain) BETWEEN 3 AND 253)
);

-- In-app feedback. A user's hard delete keeps the message (user_id becomes NULL), as the original does.
CREATE TABLE feedback (
    id         UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    UUID REFERENCES users (id) ON DELETE SET NULL,
    message    TEXT NOT NULL CHECK (char_length(message) BETWEEN 1 AND 4000),
    page       VARCHAR(2048),
    rating     SMALLINT CHECK (rating BETWEEN 1 AND 5),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ix_feedback_user_id ON feedback (user_id);
-- The admin list: newest first, keyset on (created_at, id).
CREATE INDEX ix_feedback_created_at_id ON feedback (created_at DESC, id DESC);

-- +goose Down
DROP TABLE feedback;
DROP TABLE disposable_domains;
ALTER TABLE users
    DROP COLUMN disposable_email,
    DROP COLUMN signup_completed_at,
    DROP COLUMN signup_metadata_at,
    DROP COLUMN signup_landing_page,
    DROP COLUMN signup_referrer,
    DROP COLUMN signup_utm_content,
    DROP COLUMN signup_utm_term,
    DROP COLUMN signup_utm_campaign,
    DROP COLUMN signup_utm_medium,
    DROP COLUMN signup_utm_source;
