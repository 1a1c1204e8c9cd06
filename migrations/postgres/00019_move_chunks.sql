-- +goose Up
-- The twin of sqlite/00015: a game's moves as text, one digit a move
-- (engine.Direction's value, '0' to '3'), instead of a row a move. A
-- move's row cost a heap row, its primary-key entry and the foreign-key
-- check's lock on its game's row, each with its WAL record; now a move
-- appends its digit to games.tail, in the row its guarded update writes
-- anyway, and every 64 moves (package store's ChunkLen, which must
-- agree) the tail becomes a row of move_chunks: the moves first_seq to
-- first_seq + 63.
ALTER TABLE games ADD COLUMN tail text NOT NULL DEFAULT '';

CREATE TABLE move_chunks (
    game_id   bigint NOT NULL REFERENCES games(id),
    first_seq int    NOT NULL CHECK (first_seq >= 0 AND first_seq % 64 = 0),
    dirs      text   NOT NULL CHECK (length(dirs) = 64 AND dirs ~ '^[0-3]*$'),
    PRIMARY KEY (game_id, first_seq)
);

INSERT INTO move_chunks (game_id, first_seq, dirs)
SELECT game_id, seq / 64 * 64, string_agg(dir::text, '' ORDER BY seq)
FROM moves GROUP BY game_id, seq / 64 HAVING count(*) = 64;

UPDATE games SET tail = t.dirs
FROM (
    SELECT m.game_id, string_agg(m.dir::text, '' ORDER BY m.seq) AS dirs
    FROM moves m
    WHERE m.seq >= 64 * (SELECT count(*) FROM move_chunks c WHERE c.game_id = m.game_id)
    GROUP BY m.game_id
) AS t
WHERE games.id = t.game_id;

DROP TABLE moves;

-- +goose Down
CREATE TABLE moves (
    game_id bigint   NOT NULL REFERENCES games(id),
    seq     int      NOT NULL CHECK (seq >= 0),
    dir     smallint NOT NULL CHECK (dir BETWEEN 0 AND 3),
    PRIMARY KEY (game_id, seq)
);

INSERT INTO moves (game_id, seq, dir)
SELECT c.game_id, c.first_seq + i.n, substr(c.dirs, i.n + 1, 1)::smallint
FROM move_chunks c CROSS JOIN LATERAL generate_series(0, length(c.dirs) - 1) AS i(n)
UNION ALL
SELECT g.id, 64 * (SELECT count(*) FROM move_chunks c WHERE c.game_id = g.id) + i.n, substr(g.tail, i.n + 1, 1)::smallint
FROM games g CROSS JOIN LATERAL generate_series(0, length(g.tail) - 1) AS i(n);

DROP TABLE move_chunks;
ALTER TABLE games DROP COLUMN tail;
