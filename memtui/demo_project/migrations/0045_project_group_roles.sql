-- +goose Up
CREATE TABLE project_group_roles (project_id bigint NOT NULL, group_name text NOT NULL, role text NOT NULL,
                                  PRIMARY KEY (project_id, group_name));
