-- +goose Up
-- The twin of sqlite/00005: contests (the daily challenge, races), the
-- server's secrets, races and ratings.
ALTER TABLE games ADD COLUMN contest text NOT NULL DEFAULT '';

DROP INDEX games_in_progress;
CREATE UNIQUE INDEX games_in_progress ON games(player_id, size, kind, contest) WHERE ended_at IS NULL;
CREATE UNIQUE INDEX games_daily_once ON games(player_id, size, contest) WHERE contest LIKE 'daily:%';
CREATE INDEX games_contest_rank ON games(contest, size, score DESC, reached_at, id) WHERE contest <> '';

DROP TRIGGER games_offer_best ON games;
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
FOR EACH ROW WHEN (NEW.contest = '' AND NEW.moves > 0 AND (OLD.moves = 0 OR NEW.score > OLD.score OR NEW.kind <> OLD.kind))
EXECUTE FUNCTION games_offer_best();

CREATE TABLE server_secrets (
    name  text  PRIMARY KEY,
    value bytea NOT NULL CHECK (length(value) >= 32)
);

CREATE TABLE races (
    id         bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contest    text    NOT NULL UNIQUE,
    size       int     NOT NULL CHECK (size BETWEEN 3 AND 8),
    room       text    NOT NULL,
    bots       boolean NOT NULL,
    started_at bigint  NOT NULL,
    ended_at   bigint  NOT NULL
);
CREATE TABLE race_entries (
    race_id      bigint  NOT NULL REFERENCES races(id),
    player_id    bigint  NOT NULL REFERENCES players(id),
    game_id      bigint  NOT NULL REFERENCES games(id),
    place        int     NOT NULL CHECK (place >= 1),
    score        bigint  NOT NULL,
    forfeit      boolean NOT NULL,
    rating_after double precision,
    PRIMARY KEY (race_id, player_id)
);
CREATE INDEX race_entries_player ON race_entries(player_id);

CREATE TABLE ratings (
    player_id  bigint PRIMARY KEY REFERENCES players(id),
    rating     double precision NOT NULL,
    deviation  double precision NOT NULL,
    volatility double precision NOT NULL,
    races      int    NOT NULL,
    updated_at bigint NOT NULL
);
CREATE INDEX ratings_rank ON ratings(rating DESC, player_id);

-- +goose Down
DROP TABLE ratings;
DROP TABLE race_entries;
DROP TABLE races;
DROP TABLE server_secrets;
DROP TRIGGER games_offer_best ON games;
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
FOR EACH ROW WHEN (NEW.moves > 0 AND (OLD.moves = 0 OR NEW.score > OLD.score OR NEW.kind <> OLD.kind))
EXECUTE FUNCTION games_offer_best();
DROP INDEX games_contest_rank;
DROP INDEX games_daily_once;
DROP INDEX games_in_progress;
CREATE UNIQUE INDEX games_in_progress ON games(player_id, size, kind) WHERE ended_at IS NULL;
ALTER TABLE games DROP COLUMN contest;
