-- +goose Up
-- Accounts (docs/accounts.md): a player is an account, one players row,
-- with one or more SSH keys. A players row keeps its id, so every game,
-- best, race entry and rating stays the account's; players.fingerprint
-- is now the key that made the account, kept as the account's public id
-- (store.ShortID of it is `player` in scores --json) even once that key is
-- removed. Every existing player becomes an account with its one key.
CREATE TABLE player_keys (
    fingerprint TEXT    PRIMARY KEY CHECK (fingerprint <> ''),
    player_id   INTEGER NOT NULL REFERENCES players(id),
    key_type    TEXT    NOT NULL,
    comment     TEXT    NOT NULL DEFAULT '',
    added_at    INTEGER NOT NULL,
    last_used   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX player_keys_player ON player_keys(player_id);
INSERT INTO player_keys (fingerprint, player_id, key_type, added_at, last_used)
SELECT fingerprint, id, key_type, first_seen, last_seen FROM players;

-- name_key is the key (store.NameKey: case folded, look-alike skeleton) of
-- the name the account holds in player_names; NULL for a name from before
-- accounts, which the account's next connection claims if it can.
-- renamed_at is the last rename by the `name` command (NULL: none).
ALTER TABLE players ADD COLUMN name_key TEXT;
ALTER TABLE players ADD COLUMN renamed_at INTEGER;

-- Names, one row per name key: the primary key is what makes a name one
-- account's, whichever node grants it. released_at NULL: the account's
-- name now; else the account gave it up then, and it stays the account's
-- to take back until store.NameHold has passed.
CREATE TABLE player_names (
    name_key    TEXT    PRIMARY KEY,
    player_id   INTEGER NOT NULL REFERENCES players(id),
    name        TEXT    NOT NULL,
    claimed_at  INTEGER NOT NULL,
    released_at INTEGER
) WITHOUT ROWID;
CREATE INDEX player_names_player ON player_names(player_id);

-- One-time link codes: only a hash of each code is kept. A used or
-- expired row stays a day so that its reuse is told apart from a wrong
-- code; making a code prunes older rows.
CREATE TABLE link_codes (
    code_hash  BLOB    PRIMARY KEY,
    player_id  INTEGER NOT NULL REFERENCES players(id),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
) WITHOUT ROWID;
CREATE INDEX link_codes_created ON link_codes(created_at);
CREATE INDEX link_codes_player ON link_codes(player_id);

-- +goose Down
DROP TABLE link_codes;
DROP TABLE player_names;
ALTER TABLE players DROP COLUMN renamed_at;
ALTER TABLE players DROP COLUMN name_key;
DROP TABLE player_keys;
