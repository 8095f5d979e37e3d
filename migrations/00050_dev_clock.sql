-- The development clock (`fabrica dev clock`, docs/simulate.md): how far development's time is moved from
-- the machine's, one row at most, read by every development process. Staging and production never read
-- it and refuse to write it, so a row copied along with a database changes nothing there.

-- +goose Up
CREATE TABLE dev_clock (
    id         BOOLEAN     PRIMARY KEY DEFAULT true CHECK (id),
    offset_us  BIGINT      NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT NOW()
);

-- +goose Down
DROP TABLE dev_clock;
