-- +goose Up
--
-- A move is a row of move_log, and its game's row takes the move (its
-- digit on the tail, the snapshot) later, many moves at once
-- (store/sqlite/movelog.go says when). Each process writes its moves in
-- turn into slots of its own (a ring), and the table has no other index,
-- so a group commit's moves land on a page or two, where an update of
-- each move's game wrote the page that holds that game: a page a move, in
-- a group of moves of different games. A row whose seq is below its
-- game's moves has been folded into the game; its slot is written over.
CREATE TABLE move_log (
    slot    INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    dir     INTEGER NOT NULL CHECK (dir BETWEEN 0 AND 3),
    at      INTEGER NOT NULL  -- when it was committed (unix µs), for reached_at
);

-- +goose Down
--
-- A store folds its log as it closes, and the next open folds what a
-- killed process left; a log that still holds moves is refused rather
-- than dropped with them: open the database with this version once.
CREATE TEMP TABLE move_log_left (
    moves INTEGER CONSTRAINT open_the_database_once_to_fold_its_move_log CHECK (moves = 0)
);
INSERT INTO move_log_left
SELECT count(*) FROM move_log l WHERE l.seq >= coalesce((SELECT g.moves FROM games g WHERE g.id = l.game_id), 0);
DROP TABLE move_log_left;
DROP TABLE move_log;
