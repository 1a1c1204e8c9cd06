-- +goose Up
-- Moderation: what an operator decides about players, and the audit log
-- of every decision (package moderation; store.Moderator).

-- A hidden game is stored and verifiable still, but counts on no board:
-- games_offer_best passes it over, and the boards that read games (daily,
-- races) skip it. A hidden player's games are all hidden, the games they
-- start later too (games_hidden_player). hidden_by_player marks the games
-- hidden with their player, which unhiding the player puts back; a game
-- hidden on its own stays hidden then.
ALTER TABLE games ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1));
ALTER TABLE games ADD COLUMN hidden_by_player INTEGER NOT NULL DEFAULT 0 CHECK (hidden_by_player IN (0, 1));
ALTER TABLE players ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1));
-- A rename by an admin holds until then (unix microseconds): the player's
-- own name (their SSH user name) does not replace it meanwhile.
ALTER TABLE players ADD COLUMN name_locked_until INTEGER NOT NULL DEFAULT 0;

-- Admins: by the --admin-keys file ('file', kept in step with it at each
-- start) or granted by another admin ('grant').
CREATE TABLE admins (
    player_id  INTEGER PRIMARY KEY REFERENCES players(id),
    source     TEXT    NOT NULL CHECK (source IN ('file', 'grant')),
    granted_at INTEGER NOT NULL
);

-- Bans of a player, a key (by fingerprint, played or not) or an address
-- range (canonical CIDR). A lifted ban stays, for the record; at most one
-- ban of a target is unlifted at a time (an expired one is lifted by the
-- next ban of its target). expires_at 0: until lifted.
CREATE TABLE bans (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL CHECK (kind IN ('player', 'key', 'cidr')),
    target      TEXT    NOT NULL,
    player_id   INTEGER REFERENCES players(id),
    reason      TEXT    NOT NULL,
    show_reason INTEGER NOT NULL CHECK (show_reason IN (0, 1)),
    created_by  TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL DEFAULT 0,
    lifted_at   INTEGER,
    lifted_by   TEXT
);
CREATE UNIQUE INDEX bans_active ON bans(kind, target) WHERE lifted_at IS NULL;
CREATE INDEX bans_player ON bans(player_id) WHERE player_id IS NOT NULL;

-- Every moderation write, with its author and reason, written in the
-- transaction of the change itself.
CREATE TABLE audit (
    id       INTEGER PRIMARY KEY,
    at       INTEGER NOT NULL,
    actor    TEXT    NOT NULL,
    actor_id INTEGER,
    action   TEXT    NOT NULL,
    target   TEXT    NOT NULL,
    player_id INTEGER,          -- the player it concerns, if any (admin player)
    reason   TEXT    NOT NULL,
    detail   TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX audit_at ON audit(at);
CREATE INDEX audit_player ON audit(player_id) WHERE player_id IS NOT NULL;

-- The best-score rule of 00005, hidden games passed over.
-- +goose StatementBegin
DROP TRIGGER games_offer_best;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
WHEN new.contest = '' AND new.hidden = 0 AND new.moves > 0 AND (old.moves = 0 OR new.score > old.score OR new.kind <> old.kind)
BEGIN
    INSERT INTO player_bests (player_id, size, kind, game_id, score, reached_at)
    VALUES (new.player_id, new.size, new.kind, new.id, new.score, new.reached_at)
    ON CONFLICT (player_id, size, kind) DO UPDATE
    SET game_id = excluded.game_id, score = excluded.score, reached_at = excluded.reached_at
    WHERE excluded.score > player_bests.score
       OR (excluded.score = player_bests.score AND excluded.reached_at < player_bests.reached_at);
END;
-- +goose StatementEnd

-- A hidden player's new games are hidden from their start.
-- +goose StatementBegin
CREATE TRIGGER games_hidden_player AFTER INSERT ON games
WHEN (SELECT hidden FROM players WHERE id = new.player_id) = 1
BEGIN
    UPDATE games SET hidden = 1, hidden_by_player = 1 WHERE id = new.id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER games_hidden_player;
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
DROP TABLE audit;
DROP TABLE bans;
DROP TABLE admins;
ALTER TABLE players DROP COLUMN name_locked_until;
ALTER TABLE players DROP COLUMN hidden;
ALTER TABLE games DROP COLUMN hidden_by_player;
ALTER TABLE games DROP COLUMN hidden;
