package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// A game's moves are digits in its row and in chunks (package store
// says why, and keeps the digits' format); this file is SQLite's SQL.

// chunksQuery reads a game's full chunks in order.
const chunksQuery = `SELECT first_seq, dirs FROM move_chunks WHERE game_id = ? ORDER BY first_seq`

// readMoves reads game id's moves for store.Rebuild: its chunks, then
// tail, read with the game's row in tx, so that no append slips between
// them.
func readMoves(ctx context.Context, tx *sql.Tx, id int64, tail string) ([]engine.Direction, error) {
	rows, err := tx.QueryContext(ctx, chunksQuery, id)
	if err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	defer rows.Close()
	dirs, err := store.ScanMoveChunks(rows)
	if err != nil {
		return nil, err
	}
	return store.AppendMoveDigits(dirs, tail)
}
