-- +goose Up
-- A game's moves as text, one digit a move (engine.Direction's value,
-- '0' to '3'), instead of a row a move: with many games moving at once,
-- each appended row landed on its own page of the moves table, so a group
-- commit wrote about a page more per move. Now a move appends its digit
-- to games.tail, in the row its guarded update writes anyway, and every
-- 64 moves (store/sqlite's chunkLen, which must agree) the tail becomes a
-- row of move_chunks: the moves first_seq to first_seq + 63.
ALTER TABLE games ADD COLUMN tail TEXT NOT NULL DEFAULT '';

CREATE TABLE move_chunks (
    game_id   INTEGER NOT NULL REFERENCES games(id),
    first_seq INTEGER NOT NULL CHECK (first_seq >= 0 AND first_seq % 64 = 0),
    dirs      TEXT    NOT NULL CHECK (length(dirs) = 64 AND dirs NOT GLOB '*[^0-3]*'),
    PRIMARY KEY (game_id, first_seq)
) WITHOUT ROWID;

INSERT INTO move_chunks (game_id, first_seq, dirs)
SELECT game_id, seq / 64 * 64, group_concat(dir, '' ORDER BY seq)
FROM moves GROUP BY game_id, seq / 64 HAVING count(*) = 64;

UPDATE games SET tail = t.dirs
FROM (
    SELECT m.game_id, group_concat(m.dir, '' ORDER BY m.seq) AS dirs
    FROM moves m
    WHERE m.seq >= 64 * (SELECT count(*) FROM move_chunks c WHERE c.game_id = m.game_id)
    GROUP BY m.game_id
) AS t
WHERE games.id = t.game_id;

DROP TABLE moves;

-- +goose Down
CREATE TABLE moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq     INTEGER NOT NULL CHECK (seq >= 0),
    dir     INTEGER NOT NULL CHECK (dir BETWEEN 0 AND 3),
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 63)
INSERT INTO moves (game_id, seq, dir)
SELECT c.game_id, c.first_seq + i.n, CAST(substr(c.dirs, i.n + 1, 1) AS INTEGER)
FROM move_chunks c JOIN i ON i.n < length(c.dirs)
UNION ALL
SELECT g.id, 64 * (SELECT count(*) FROM move_chunks c WHERE c.game_id = g.id) + i.n, CAST(substr(g.tail, i.n + 1, 1) AS INTEGER)
FROM games g JOIN i ON i.n < length(g.tail);

DROP TABLE move_chunks;
ALTER TABLE games DROP COLUMN tail;
