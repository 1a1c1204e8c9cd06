-- +goose Up
-- The twin of sqlite/00011: hidden games and players, name locks, admins,
-- bans and the audit log (see there for what each is).
ALTER TABLE games ADD COLUMN hidden boolean NOT NULL DEFAULT false;
ALTER TABLE games ADD COLUMN hidden_by_player boolean NOT NULL DEFAULT false;
ALTER TABLE players ADD COLUMN hidden boolean NOT NULL DEFAULT false;
ALTER TABLE players ADD COLUMN name_locked_until bigint NOT NULL DEFAULT 0;

CREATE TABLE admins (
    player_id  bigint PRIMARY KEY REFERENCES players(id),
    source     text   NOT NULL CHECK (source IN ('file', 'grant')),
    granted_at bigint NOT NULL
);

CREATE TABLE bans (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text    NOT NULL CHECK (kind IN ('player', 'key', 'cidr')),
    target      text    NOT NULL,
    player_id   bigint  REFERENCES players(id),
    reason      text    NOT NULL,
    show_reason boolean NOT NULL,
    created_by  text    NOT NULL,
    created_at  bigint  NOT NULL,
    expires_at  bigint  NOT NULL DEFAULT 0,
    lifted_at   bigint,
    lifted_by   text
);
CREATE UNIQUE INDEX bans_active ON bans(kind, target) WHERE lifted_at IS NULL;
CREATE INDEX bans_player ON bans(player_id) WHERE player_id IS NOT NULL;

CREATE TABLE audit (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at        bigint NOT NULL,
    actor     text   NOT NULL,
    actor_id  bigint,
    action    text   NOT NULL,
    target    text   NOT NULL,
    player_id bigint,
    reason    text   NOT NULL,
    detail    text   NOT NULL DEFAULT ''
);
CREATE INDEX audit_at ON audit(at);
CREATE INDEX audit_player ON audit(player_id) WHERE player_id IS NOT NULL;

-- The best-score rule of 00005, hidden games passed over.
DROP TRIGGER games_offer_best ON games;
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
FOR EACH ROW WHEN (NEW.contest = '' AND NOT NEW.hidden AND NEW.moves > 0 AND (OLD.moves = 0 OR NEW.score > OLD.score OR NEW.kind <> OLD.kind))
EXECUTE FUNCTION games_offer_best();

-- A hidden player's new games are hidden from their start.
-- +goose StatementBegin
CREATE FUNCTION games_hidden_player() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT hidden FROM players WHERE id = NEW.player_id) THEN
        NEW.hidden := true;
        NEW.hidden_by_player := true;
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER games_hidden_player BEFORE INSERT ON games
FOR EACH ROW EXECUTE FUNCTION games_hidden_player();

-- +goose Down
DROP TRIGGER games_hidden_player ON games;
DROP FUNCTION games_hidden_player;
DROP TRIGGER games_offer_best ON games;
CREATE TRIGGER games_offer_best AFTER UPDATE OF score, moves, kind ON games
FOR EACH ROW WHEN (NEW.contest = '' AND NEW.moves > 0 AND (OLD.moves = 0 OR NEW.score > OLD.score OR NEW.kind <> OLD.kind))
EXECUTE FUNCTION games_offer_best();
DROP TABLE audit;
DROP TABLE bans;
DROP TABLE admins;
ALTER TABLE players DROP COLUMN name_locked_until;
ALTER TABLE players DROP COLUMN hidden;
ALTER TABLE games DROP COLUMN hidden_by_player;
ALTER TABLE games DROP COLUMN hidden;
