-- +goose Up
--
-- SQLite's 00020 appends moves to a log folded into their games later;
-- PostgreSQL writes a move into its game's row (00017). Nothing to change
-- here; the file keeps the two dialects' numbers in step.
SELECT 1;

-- +goose Down
SELECT 1;
