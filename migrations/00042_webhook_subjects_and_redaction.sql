-- Erasure reaches the webhook archive. The raw bodies of Clerk and Paddle deliveries carry a user's Clerk id
-- and email (Clerk's user objects, Paddle's custom_data); when the user is erased those bodies are redacted.
--  subjects     who a delivery is about, read from the body when it is archived (webhook.Envelope.Subjects:
--               Clerk user ids, email addresses folded as users.email is, Paddle customer ids); '{}' when it
--               names nobody, NULL when it was never read (rows archived before this migration, and bodies
--               whose envelope could not be read). The GIN index finds a user's deliveries at erasure.
--  redacted_at  when the body was replaced at an erasure; the row, its claim and its status stay.
-- Rows archived before this migration have no subjects: an erasure searches their bytes instead, through the
-- partial index that lists only them, until WEBHOOK_ARCHIVE_RETENTION has purged them all.

-- +goose Up
ALTER TABLE webhook_events ADD COLUMN subjects TEXT[], ADD COLUMN redacted_at TIMESTAMPTZ;
CREATE INDEX ix_webhook_events_subjects ON webhook_events USING gin (subjects);
CREATE INDEX ix_webhook_events_unread_subjects ON webhook_events (created_at)
    WHERE subjects IS NULL AND redacted_at IS NULL;

-- +goose Down
DROP INDEX ix_webhook_events_unread_subjects;
DROP INDEX ix_webhook_events_subjects;
ALTER TABLE webhook_events DROP COLUMN redacted_at, DROP COLUMN subjects;
