-- +goose Up
-- Contests: games played on a shared seed, which rank among themselves and
-- not on the all-time boards. games.contest is '' for free play,
-- 'daily:YYYY-MM-DD' for that day's challenge (UTC) and for a
-- game of a race ('race:' and the race's random id, races.contest).
ALTER TABLE games ADD COLUMN contest TEXT NOT NULL DEFAULT '';

-- One game in progress per (player, size, kind) and contest: a daily
-- challenge does not end or take over the free game of the same size.
DROP INDEX games_in_progress;
CREATE UNIQUE INDEX games_in_progress ON games(player_id, size, kind, contest) WHERE ended_at IS NULL;
-- One attempt per player, day and size at the daily challenge, whatever
-- its kind; and each contest's games in ranking order.
CREATE UNIQUE INDEX games_daily_once ON games(player_id, size, contest) WHERE contest LIKE 'daily:%';
CREATE INDEX games_contest_rank ON games(contest, size, score DESC, reached_at, id) WHERE contest <> '';

-- The best-score rule, still in one place, now for free play only.
-- +goose StatementBegin
DROP TRIGGER games_offer_best;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
WHEN new.contest = '' AND new.moves > 0 AND (old.moves = 0 OR new.score > old.score OR new.kind <> old.kind)
BEGIN
    INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
    VALUES (new.player_id, new.size, new.kind, new.id, new.score, new.reached_at)
    ON CONFLICT (player_id, size, kind) DO UPDATE
    SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
    WHERE excluded.score > player_bests.score
       OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at);
END;
-- +goose StatementEnd

-- Secrets the server keeps with its data, so that every node on one
-- database shares them and a backup holds them: 'daily' keys the daily
-- challenge's seeds, which nobody can compute before the day is over.
CREATE TABLE server_secrets (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL CHECK (length(value) >= 32)
) WITHOUT ROWID;

-- Races: players on one seed for a few minutes; each entry is one
-- racer's game, its place and the rating it moved.
CREATE TABLE races (
    id         INTEGER PRIMARY KEY,
    contest    TEXT    NOT NULL UNIQUE,   -- 'race:' and a random id: its games' contest
    size       INTEGER NOT NULL CHECK (size BETWEEN 3 AND 8),
    room       TEXT    NOT NULL,          -- '' for the public lobby
    bots       INTEGER NOT NULL CHECK (bots IN (0, 1)),  -- a bot raced: ranks apart
    started_at INTEGER NOT NULL,
    ended_at   INTEGER NOT NULL
);
CREATE TABLE race_entries (
    race_id      INTEGER NOT NULL REFERENCES races(id),
    player_id    INTEGER NOT NULL REFERENCES players(id),
    game_id      INTEGER NOT NULL REFERENCES games(id),
    place        INTEGER NOT NULL CHECK (place >= 1),
    score        INTEGER NOT NULL,
    forfeit      INTEGER NOT NULL CHECK (forfeit IN (0, 1)),
    rating_after REAL,                    -- NULL: unrated (a guest, or a race with bots)
    PRIMARY KEY (race_id, player_id)
) WITHOUT ROWID;
CREATE INDEX race_entries_player ON race_entries(player_id);

-- Each player's race rating (Glicko-2: rating, deviation, volatility).
CREATE TABLE ratings (
    player_id  INTEGER PRIMARY KEY REFERENCES players(id),
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    races      INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX ratings_rank ON ratings(rating DESC, player_id);

-- +goose Down
DROP TABLE ratings;
DROP TABLE race_entries;
DROP TABLE races;
DROP TABLE server_secrets;
-- +goose StatementBegin
DROP TRIGGER games_offer_best;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
WHEN new.moves > 0 AND (old.moves = 0 OR new.score > old.score OR new.kind <> old.kind)
BEGIN
    INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
    VALUES (new.player_id, new.size, new.kind, new.id, new.score, new.reached_at)
    ON CONFLICT (player_id, size, kind) DO UPDATE
    SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
    WHERE excluded.score > player_bests.score
       OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at);
END;
-- +goose StatementEnd
DROP INDEX games_contest_rank;
DROP INDEX games_daily_once;
DROP INDEX games_in_progress;
CREATE UNIQUE INDEX games_in_progress ON games(player_id, size, kind) WHERE ended_at IS NULL;
ALTER TABLE games DROP COLUMN contest;
