-- Pull reconciliation: how far each sync has read a provider's event log (Paddle's GET /events is ordered by
-- event id). The cursor only moves forward, past events whose transaction committed.

-- +goose Up
CREATE TABLE sync_cursors (
    name       VARCHAR(64)  PRIMARY KEY,
    cursor     VARCHAR(255) NOT NULL,
    updated_at TIMESTAMPTZ  NOT NULL DEFAULT NOW()
);

-- +goose Down
DROP TABLE sync_cursors;
