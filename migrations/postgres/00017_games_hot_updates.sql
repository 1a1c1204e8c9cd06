-- +goose Up
-- A move rewrites its game's row. PostgreSQL can write the new version
-- beside the old one on the same page, with no new index entries (a HOT
-- update), only if no index of games covers a column the move changes and
-- the page has room. games_contest_rank covered score and reached_at, so
-- every scoring move of every game (contest or not) added an entry to each
-- of games' indexes. The contest's games are now found by contest and
-- size, and ranked by sorting them (ContestBoard; the ranks in memory load
-- them the same way). Pages are left a quarter free for the next versions
-- of their rows; pages written before this fill up their free space as
-- rows are updated and vacuumed.
DROP INDEX games_contest_rank;
CREATE INDEX games_contest ON games(contest, size) WHERE contest <> '';
ALTER TABLE games SET (fillfactor = 75);

-- +goose Down
ALTER TABLE games RESET (fillfactor);
DROP INDEX games_contest;
CREATE INDEX games_contest_rank ON games(contest, size, score DESC, reached_at, id) WHERE contest <> '';
