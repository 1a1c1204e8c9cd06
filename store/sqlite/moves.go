package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
)

// A game's moves are text, one digit a move (engine.Direction's value):
// games.tail holds the moves since the last full chunk, appended by the
// guarded update that stores each move, and move_chunks holds the full
// chunks of chunkLen moves (migration 00015). A move so writes only its
// game's row, which its group commit writes anyway, instead of a row of
// its own on another page; a chunk row is written once every chunkLen
// moves.

// chunkLen is how many moves a row of move_chunks holds. Migration 00015
// checks the same number; changing it needs a migration.
const chunkLen = 64

// chunksQuery reads a game's full chunks in order.
const chunksQuery = `SELECT first_seq, dirs FROM move_chunks WHERE game_id = ? ORDER BY first_seq`

// moveDigit is d as games.tail keeps it.
func moveDigit(d engine.Direction) string { return string(rune('0' + d)) }

// chunkTail moves game id's tail into move_chunks when move seq, just
// appended to it, filled it. It runs after the guarded update matched,
// so a refused move still writes nothing.
func chunkTail(ctx context.Context, tx *sql.Tx, id int64, seq int) error {
	if (seq+1)%chunkLen != 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO move_chunks (game_id, first_seq, dirs) SELECT id, ?2, tail FROM games WHERE id = ?1`,
		id, seq+1-chunkLen); err != nil {
		return fmt.Errorf("chunk moves: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE games SET tail = '' WHERE id = ?`, id); err != nil {
		return fmt.Errorf("chunk moves: %w", err)
	}
	return nil
}

// readMoves reads game id's moves for store.Rebuild: its chunks, then
// tail, read with the game's row in tx, so that no append slips between
// them. A chunk out of place is an error: a game missing a move cannot be
// replayed.
func readMoves(ctx context.Context, tx *sql.Tx, id int64, tail string) ([]engine.Direction, error) {
	rows, err := tx.QueryContext(ctx, chunksQuery, id)
	if err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	defer rows.Close()
	var dirs []engine.Direction
	for rows.Next() {
		var first int64
		var chunk string
		if err := rows.Scan(&first, &chunk); err != nil {
			return nil, fmt.Errorf("read moves: %w", err)
		}
		if first != int64(len(dirs)) {
			return nil, fmt.Errorf("read moves: move %d missing", len(dirs))
		}
		if dirs, err = appendDigits(dirs, chunk); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	return appendDigits(dirs, tail)
}

// appendDigits appends the moves of s, as moveDigit wrote them, to dirs.
func appendDigits(dirs []engine.Direction, s string) ([]engine.Direction, error) {
	for i := range len(s) {
		d := engine.Direction(s[i] - '0')
		if s[i] < '0' || !d.Valid() {
			return nil, fmt.Errorf("read moves: move %d is %q, not a direction", len(dirs), s[i])
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}
