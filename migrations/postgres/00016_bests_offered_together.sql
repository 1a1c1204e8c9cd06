-- +goose Up
-- SQLite's 00016 offers a group's moved games to the bests together,
-- outside the moves' own statements. PostgreSQL's statement-level
-- triggers (00010) already offer a group's games in one statement.
-- Nothing to change here; the file keeps the two dialects' numbers in
-- step.
SELECT 1;

-- +goose Down
SELECT 1;
