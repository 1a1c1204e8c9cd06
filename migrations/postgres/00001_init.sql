-- +goose Up
-- The PostgreSQL twin of sqlite/00001_init.sql: the same tables, columns
-- and indexes. Times stay unix microseconds (bigint), as in SQLite, so that
-- both stores share their Go types and "who got there first" is decided by
-- the same strictly increasing clock; seeds are uint64 kept bit for bit in
-- a signed bigint.

CREATE TABLE players (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fingerprint text    NOT NULL UNIQUE CHECK (fingerprint <> ''),
    key_type    text    NOT NULL,
    name        text    NOT NULL,          -- sanitized display name
    first_seen  bigint  NOT NULL,
    last_seen   bigint  NOT NULL
);

CREATE TABLE games (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player_id   bigint  NOT NULL REFERENCES players(id),
    size        int     NOT NULL CHECK (size BETWEEN 3 AND 8),
    kind        text    NOT NULL CHECK (kind IN ('human', 'assisted', 'bot')),
    seed        bigint  NOT NULL,
    score       bigint  NOT NULL DEFAULT 0,
    max_tile    bigint  NOT NULL DEFAULT 0,
    moves       int     NOT NULL DEFAULT 0,  -- = count of its rows in moves
    won         boolean NOT NULL DEFAULT false,
    board       text    NOT NULL,            -- engine.Board.String() after the last move
    started_at  bigint  NOT NULL,
    updated_at  bigint  NOT NULL,
    reached_at  bigint  NOT NULL,            -- when the current score was first reached (ties)
    ended_at    bigint                       -- NULL while in progress
);

CREATE UNIQUE INDEX games_in_progress ON games(player_id, size, kind) WHERE ended_at IS NULL;
-- A player's history, newest first (SQLite's index carries the rowid; here
-- the id is spelt out).
CREATE INDEX games_player ON games(player_id, id);

CREATE TABLE moves (
    game_id bigint   NOT NULL REFERENCES games(id),
    seq     int      NOT NULL CHECK (seq >= 0),
    dir     smallint NOT NULL CHECK (dir BETWEEN 0 AND 3),
    PRIMARY KEY (game_id, seq)
);

CREATE TABLE player_bests (
    player_id  bigint NOT NULL REFERENCES players(id),
    size       int    NOT NULL,
    kind       text   NOT NULL,
    game_id    bigint NOT NULL REFERENCES games(id),
    score      bigint NOT NULL,
    reached_at bigint NOT NULL,
    PRIMARY KEY (player_id, size, kind)
);
CREATE INDEX player_bests_rank ON player_bests(size, kind, score DESC, reached_at, game_id);

CREATE TABLE score_buckets (
    size    int    NOT NULL,
    kind    text   NOT NULL,
    bucket  bigint NOT NULL,
    players bigint NOT NULL,
    PRIMARY KEY (size, kind, bucket)
);

-- The bucket of a score, as SQLite's triggers compute it inline and
-- db.scoreBucket in Go: digits * 1000 + the first three digits.
-- +goose StatementBegin
CREATE FUNCTION score_bucket(score bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT length(score::text) * 1000 + substr(score::text, 1, 3)::bigint $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION player_bests_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE score_buckets SET players = players - 1
        WHERE size = OLD.size AND kind = OLD.kind AND bucket = score_bucket(OLD.score);
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO score_buckets (size, kind, bucket, players)
        VALUES (NEW.size, NEW.kind, score_bucket(NEW.score), 1)
        ON CONFLICT (size, kind, bucket) DO UPDATE SET players = score_buckets.players + 1;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER player_bests_insert AFTER INSERT ON player_bests
FOR EACH ROW EXECUTE FUNCTION player_bests_count();
CREATE TRIGGER player_bests_update AFTER UPDATE OF score ON player_bests
FOR EACH ROW WHEN (score_bucket(OLD.score) <> score_bucket(NEW.score)) EXECUTE FUNCTION player_bests_count();
CREATE TRIGGER player_bests_delete AFTER DELETE ON player_bests
FOR EACH ROW EXECUTE FUNCTION player_bests_count();

-- +goose Down
DROP TABLE score_buckets;
DROP TABLE player_bests;
DROP FUNCTION player_bests_count;
DROP FUNCTION score_bucket;
DROP TABLE moves;
DROP TABLE games;
DROP TABLE players;
