-- +goose Up
-- One writer per game between the processes on one SQLite file: the
-- server and `ssh2048 play`. Loading a game to play it claims it: claim
-- is its fencing token, incremented by every claim, and claim_node the
-- process (a random name per open store) that claimed it last. A move or
-- end carries the token its game was loaded with and is refused when the
-- game's is newer (db.ErrFenced). A claim that takes a game from another
-- process leaves a row in takeovers for that process, which polls for
-- its own rows and ends its session of the game at once, rather than at
-- its next move (PostgreSQL's game_holders and NOTIFY do the same across
-- nodes, migration 00006). Rows older than a minute are deleted by the
-- next takeover. A restarted server is a new process: its first claim of
-- each game leaves a notice no one reads, which that pruning clears.
ALTER TABLE games ADD COLUMN claim INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN claim_node TEXT NOT NULL DEFAULT '';
CREATE TABLE takeovers (
    seq     INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL,
    token   INTEGER NOT NULL,   -- the game's claim after the takeover
    node    TEXT    NOT NULL,   -- the process that held it before
    at      INTEGER NOT NULL
);
CREATE INDEX takeovers_node ON takeovers(node, seq); -- each process's poll
CREATE INDEX takeovers_at ON takeovers(at);            -- the pruning, after a restart's burst too

-- +goose Down
DROP TABLE takeovers;
ALTER TABLE games DROP COLUMN claim_node;
ALTER TABLE games DROP COLUMN claim;
