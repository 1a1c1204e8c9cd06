-- +goose Up
-- Races across nodes: the node that runs each race's lobby, by key
-- ("lobby:SIZE" for the public lobby's waiting race of a size,
-- "room:WORD" for a private room). A node claims a key when it opens a
-- race for it and no live node owns it, and renews lease_until (unix
-- microseconds) while the race may still take racers; a dead node's rooms
-- are free again once its lease runs out. race is the race's id
-- ("race:…"): a claim that replaces a race that can take no one (a
-- started lobby race, a finished room) names the race it replaces.
CREATE TABLE race_owners (
    key         text   PRIMARY KEY,
    race        text   NOT NULL,
    node        text   NOT NULL,
    lease_until bigint NOT NULL
);

-- +goose Down
DROP TABLE race_owners;
