-- +goose Up
CREATE TABLE quotas (project_id bigint PRIMARY KEY, limit_bytes bigint, used_bytes bigint NOT NULL DEFAULT 0);
