-- +goose Up
CREATE TABLE webhook_deliveries (id bigserial PRIMARY KEY, hook_id bigint NOT NULL, event jsonb NOT NULL,
                                 occurred_at timestamptz NOT NULL, attempts int NOT NULL DEFAULT 0,
                                 next_attempt_at timestamptz NOT NULL, last_status int);
