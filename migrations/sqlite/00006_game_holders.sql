-- +goose Up
-- PostgreSQL's 00006 records which node holds each game, with a fencing
-- token, for several nodes sharing one database. A SQLite database has
-- one server: its game service is the one writer of every game, and the
-- stale-writer check on each move's sequence number is the backstop
-- between it and `ssh2048 play`. Nothing to change here; the file keeps
-- the two dialects' numbers in step.
SELECT 1;

-- +goose Down
SELECT 1;
