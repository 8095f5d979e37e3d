-- `fabrica verify` holds every dedup claim younger than the archive's retention to its archive row. The
-- claims are kept forever, so after a year or two the retention window is a small recent slice of the
-- table: a BRIN index on processed_at (claims are appended in time order) lets that check read only the
-- slice's blocks. BRIN costs the webhook hot path next to nothing (no per-row index entry), which a B-tree
-- on a column only a daily check reads would not.

-- +goose Up
CREATE INDEX ix_processed_webhook_events_processed_at ON processed_webhook_events USING brin (processed_at);

-- +goose Down
DROP INDEX ix_processed_webhook_events_processed_at;
