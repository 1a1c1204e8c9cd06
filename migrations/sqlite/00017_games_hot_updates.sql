-- +goose Up
--
-- PostgreSQL's 00017 lets a move update its game's row in place (no index
-- of games covers what a move changes). SQLite updates a row in place
-- whatever its indexes, and touches games_contest_rank only for a
-- contest's games; nothing to change here, the file keeps the two
-- dialects' numbers in step.
SELECT 1;

-- +goose Down
SELECT 1;
