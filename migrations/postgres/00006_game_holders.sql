-- +goose Up
-- One writer per game across nodes: the node that holds each game and its
-- fencing token, incremented by every claim. A write carries the token
-- its game was loaded with, and a write whose token is no longer the
-- game's is refused here, in the database, whatever the writing node
-- believes (a node paused or cut off while another took its game over).
-- lease_until (unix microseconds) is renewed by the holding node while it
-- holds the game; a game whose lease has run out is held by no live node.
-- A claim never waits for a lease: the newest session wins, as on one
-- node, so a node that dies leaves no game locked at all.
CREATE TABLE game_holders (
    game_id     bigint PRIMARY KEY REFERENCES games(id),
    node        text   NOT NULL,
    token       bigint NOT NULL CHECK (token > 0),
    lease_until bigint NOT NULL
);
CREATE INDEX game_holders_node ON game_holders(node);

-- +goose Down
DROP TABLE game_holders;
