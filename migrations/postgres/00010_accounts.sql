-- +goose Up
-- The PostgreSQL twin of sqlite/00010_accounts.sql (accounts: keys, names,
-- link codes; docs/accounts.md). The primary key of player_names is what
-- makes a name one account's: two nodes claiming one name at once meet
-- on it, and one of them is refused.
CREATE TABLE player_keys (
    fingerprint text   PRIMARY KEY CHECK (fingerprint <> ''),
    player_id   bigint NOT NULL REFERENCES players(id),
    key_type    text   NOT NULL,
    comment     text   NOT NULL DEFAULT '',
    added_at    bigint NOT NULL,
    last_used   bigint NOT NULL
);
CREATE INDEX player_keys_player ON player_keys(player_id);
INSERT INTO player_keys (fingerprint, player_id, key_type, added_at, last_used)
SELECT fingerprint, id, key_type, first_seen, last_seen FROM players;

ALTER TABLE players ADD COLUMN name_key text;
ALTER TABLE players ADD COLUMN renamed_at bigint;

CREATE TABLE player_names (
    name_key    text   PRIMARY KEY,
    player_id   bigint NOT NULL REFERENCES players(id),
    name        text   NOT NULL,
    claimed_at  bigint NOT NULL,
    released_at bigint
);
CREATE INDEX player_names_player ON player_names(player_id);

CREATE TABLE link_codes (
    code_hash  bytea  PRIMARY KEY,
    player_id  bigint NOT NULL REFERENCES players(id),
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at    bigint
);
CREATE INDEX link_codes_created ON link_codes(created_at);
CREATE INDEX link_codes_player ON link_codes(player_id);

-- +goose Down
DROP TABLE link_codes;
DROP TABLE player_names;
ALTER TABLE players DROP COLUMN renamed_at;
ALTER TABLE players DROP COLUMN name_key;
DROP TABLE player_keys;
