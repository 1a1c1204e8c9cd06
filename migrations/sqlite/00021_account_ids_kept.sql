-- +goose Up
--
-- An account's id is never another's (docs/accounts.md, Ids). A merge
-- deletes the account that joins (link CODE --merge), and SQLite gives a
-- new row the largest id in the table plus one: the account made next
-- took the id of the one just deleted when it was the newest, and a
-- session still open on the merged key (it names the account it logged
-- in as) then played on that stranger's account. AUTOINCREMENT keeps the
-- largest id ever given (sqlite_sequence), as PostgreSQL's identity does.
--
-- SQLite cannot add AUTOINCREMENT to a table, so players is made again.
-- Its rows go aside, the table is dropped and made anew, and they come
-- back with their ids. Foreign keys stay on: deferred to the commit, the
-- rows that refer to players are counted out with the old table and back
-- in with the new, and the commit checks that none is left without its
-- player. players has no index but its key's and its fingerprint's, and
-- no trigger of its own.
PRAGMA defer_foreign_keys = ON;
CREATE TEMP TABLE players_aside AS SELECT * FROM players;
DROP TABLE players;
CREATE TABLE players (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    fingerprint       TEXT    NOT NULL UNIQUE CHECK (fingerprint <> ''),
    key_type          TEXT    NOT NULL,
    name              TEXT    NOT NULL,          -- sanitized display name
    first_seen        INTEGER NOT NULL,
    last_seen         INTEGER NOT NULL,
    name_key          TEXT,
    renamed_at        INTEGER,
    hidden            INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
    name_locked_until INTEGER NOT NULL DEFAULT 0
);
INSERT INTO players (id, fingerprint, key_type, name, first_seen, last_seen, name_key, renamed_at, hidden, name_locked_until)
SELECT id, fingerprint, key_type, name, first_seen, last_seen, name_key, renamed_at, hidden, name_locked_until FROM temp.players_aside;
DROP TABLE temp.players_aside;

-- +goose Down
--
-- players without AUTOINCREMENT, as before; the same steps.
PRAGMA defer_foreign_keys = ON;
CREATE TEMP TABLE players_aside AS SELECT * FROM players;
DROP TABLE players;
CREATE TABLE players (
    id                INTEGER PRIMARY KEY,
    fingerprint       TEXT    NOT NULL UNIQUE CHECK (fingerprint <> ''),
    key_type          TEXT    NOT NULL,
    name              TEXT    NOT NULL,          -- sanitized display name
    first_seen        INTEGER NOT NULL,
    last_seen         INTEGER NOT NULL,
    name_key          TEXT,
    renamed_at        INTEGER,
    hidden            INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
    name_locked_until INTEGER NOT NULL DEFAULT 0
);
INSERT INTO players (id, fingerprint, key_type, name, first_seen, last_seen, name_key, renamed_at, hidden, name_locked_until)
SELECT id, fingerprint, key_type, name, first_seen, last_seen, name_key, renamed_at, hidden, name_locked_until FROM temp.players_aside;
DROP TABLE temp.players_aside;
