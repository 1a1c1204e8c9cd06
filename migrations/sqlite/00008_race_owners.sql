-- +goose Up
-- PostgreSQL's 00008 records which node runs each race lobby and private
-- room, for several nodes sharing one database. A SQLite database has one
-- server, which runs every race in its memory. Nothing to change here;
-- the file keeps the two dialects' numbers in step.
SELECT 1;

-- +goose Down
SELECT 1;
