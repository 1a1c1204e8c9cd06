-- +goose Up
-- SQLite's 00021 makes players AUTOINCREMENT, so that the id of an
-- account a merge deleted is never given again. PostgreSQL's identity
-- (00001) never gives an id twice already. Nothing to change here; the
-- file keeps the two dialects' numbers in step.
SELECT 1;

-- +goose Down
SELECT 1;
