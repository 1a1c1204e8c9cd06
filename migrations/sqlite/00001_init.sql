-- +goose Up
-- Times are unix microseconds (INTEGER). Seeds are uint64 stored bit for bit
-- in SQLite's signed 64-bit INTEGER (package db converts explicitly).

-- A player is the SSH public key that authenticated, named by its SHA256
-- fingerprint as `ssh-keygen -lf` prints it. Guests are never stored.
CREATE TABLE players (
    id          INTEGER PRIMARY KEY,
    fingerprint TEXT    NOT NULL UNIQUE CHECK (fingerprint <> ''),
    key_type    TEXT    NOT NULL,
    name        TEXT    NOT NULL,          -- sanitized display name
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL
);

-- A game is derived from (size, seed, moves); the score columns and board
-- snapshot are what the player's engine said after the last move, kept so
-- leaderboards never replay, and checked against a replay on load.
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    player_id   INTEGER NOT NULL REFERENCES players(id),
    size        INTEGER NOT NULL CHECK (size BETWEEN 3 AND 8),
    kind        TEXT    NOT NULL CHECK (kind IN ('human', 'assisted', 'bot')),
    seed        INTEGER NOT NULL,
    score       INTEGER NOT NULL DEFAULT 0,
    max_tile    INTEGER NOT NULL DEFAULT 0,
    moves       INTEGER NOT NULL DEFAULT 0,  -- = count of its rows in moves
    won         INTEGER NOT NULL DEFAULT 0 CHECK (won IN (0, 1)),
    board       TEXT    NOT NULL,            -- engine.Board.String() after the last move
    started_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    reached_at  INTEGER NOT NULL,            -- when the current score was first reached (ties)
    ended_at    INTEGER                      -- NULL while in progress
);

-- At most one game in progress per (player, size, kind); also the lookup
-- for "the game waiting for you".
CREATE UNIQUE INDEX games_in_progress ON games(player_id, size, kind) WHERE ended_at IS NULL;
-- A player's history, newest first (rowid order within the player).
CREATE INDEX games_player ON games(player_id);

-- One row per move, appended: a move costs one small row, never a rewrite
-- of the game's whole move list. dir is engine.Direction's byte value.
CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL CHECK (seq >= 0),  -- 0-based index of the move in its game
    dir     INTEGER NOT NULL CHECK (dir BETWEEN 0 AND 3),
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

-- Each player's best game per (size, kind), kept up to date by every write
-- that changes a score, so that a leaderboard is an index walk and a rank
-- is an index count: one row per player, never a scan of all games.
-- Scores within a game only grow, so a best only ever improves, except
-- when a game changes kind (human → assisted), which recomputes it.
CREATE TABLE player_bests (
    player_id  INTEGER NOT NULL REFERENCES players(id),
    size       INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    game_id    INTEGER NOT NULL REFERENCES games(id),
    score      INTEGER NOT NULL,
    reached_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, size, kind)
) WITHOUT ROWID;

-- Leaderboard order: higher score first, then whoever got there first.
CREATE INDEX player_bests_rank ON player_bests(size, kind, score DESC, reached_at, game_id);

-- How many players' bests fall in each score bucket, per board, so that a
-- rank sums a few hundred bucket rows and counts only the entries of its
-- own bucket, instead of counting every entry ahead of it. A bucket is the
-- score's number of decimal digits and its first three digits
-- (digits * 1000 + prefix), which orders buckets as their scores and keeps
-- each bucket within 1% of its scores' size. db.scoreBucket is the same
-- function in Go.
CREATE TABLE score_buckets (
    size    INTEGER NOT NULL,
    kind    TEXT    NOT NULL,
    bucket  INTEGER NOT NULL,
    players INTEGER NOT NULL,
    PRIMARY KEY (size, kind, bucket)
) WITHOUT ROWID;

-- +goose StatementBegin
CREATE TRIGGER player_bests_insert AFTER INSERT ON player_bests BEGIN
    INSERT INTO score_buckets (size, kind, bucket, players)
    VALUES (new.size, new.kind, length(new.score) * 1000 + CAST(substr(new.score, 1, 3) AS INTEGER), 1)
    ON CONFLICT (size, kind, bucket) DO UPDATE SET players = players + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER player_bests_update AFTER UPDATE OF score ON player_bests
WHEN length(old.score) * 1000 + CAST(substr(old.score, 1, 3) AS INTEGER)
  <> length(new.score) * 1000 + CAST(substr(new.score, 1, 3) AS INTEGER)
BEGIN
    UPDATE score_buckets SET players = players - 1
    WHERE size = old.size AND kind = old.kind
      AND bucket = length(old.score) * 1000 + CAST(substr(old.score, 1, 3) AS INTEGER);
    INSERT INTO score_buckets (size, kind, bucket, players)
    VALUES (new.size, new.kind, length(new.score) * 1000 + CAST(substr(new.score, 1, 3) AS INTEGER), 1)
    ON CONFLICT (size, kind, bucket) DO UPDATE SET players = players + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER player_bests_delete AFTER DELETE ON player_bests BEGIN
    UPDATE score_buckets SET players = players - 1
    WHERE size = old.size AND kind = old.kind
      AND bucket = length(old.score) * 1000 + CAST(substr(old.score, 1, 3) AS INTEGER);
END;
-- +goose StatementEnd

-- +goose Down
DROP TABLE score_buckets;
DROP TABLE player_bests;
DROP TABLE moves;
DROP TABLE games;
DROP TABLE players;
