-- The worked example of a metered endpoint of your own (backend/examples/imagegen, docs/usage.md): the
-- app's own row of each image generation. POST /api/v1/generations inserts it and charges the credits
-- feature `generations` in one transaction, once per Idempotency-Key. The example package owns it.

-- +goose Up
CREATE TABLE example_generations (
    id         UUID          NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
    user_id    UUID          NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    prompt     VARCHAR(1000) NOT NULL,
    -- The usage event that paid for it (usage_events.id).
    event_id   UUID          NOT NULL,
    created_at TIMESTAMPTZ   NOT NULL DEFAULT now()
);
CREATE INDEX ix_example_generations_user_id ON example_generations (user_id, created_at);

-- +goose Down
DROP TABLE example_generations;
