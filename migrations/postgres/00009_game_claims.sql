-- +goose Up
-- SQLite's 00009 adds fencing tokens and takeover notices between the
-- processes on one file. PostgreSQL has had both since 00006
-- (game_holders, NOTIFY). Nothing to change here; the file keeps the two
-- dialects' numbers in step.
SELECT 1;

-- +goose Down
SELECT 1;
