package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// store.FullGame reads game id, its player and its moves in one read
// transaction, so that a concurrent append cannot slip between them.
func (s *Store) FullGame(ctx context.Context, id int64) (store.FullGame, error) {
	if err := s.settle(ctx, func(ctx context.Context, tx *sql.Tx) error { return s.mlog.fold(ctx, tx, id) }); err != nil {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	tx, err := s.read.BeginTx(ctx, nil)
	if err != nil {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	defer tx.Rollback()
	g := store.FullGame{GameSummary: store.GameSummary{ID: id}}
	var (
		kind, tail       string
		seed             int64
		gen              uint8
		started, updated int64
		ended            sql.NullInt64
	)
	err = tx.QueryRowContext(ctx, `
		SELECT g.player_id, p.name, p.fingerprint, g.size, g.kind, g.generator, g.seed,
		       g.score, g.max_tile, g.moves, g.won, g.board, g.contest, g.started_at, g.updated_at, g.ended_at, g.tail
		FROM games g JOIN players p ON p.id = g.player_id WHERE g.id = ?`, id,
	).Scan(&g.PlayerID, &g.Player, &g.Fingerprint, &g.Size, &kind, &gen, &seed,
		&g.Score, &g.MaxTile, &g.Moves, &g.Won, &g.Board, &g.Contest, &started, &updated, &ended, &tail)
	if errors.Is(err, sql.ErrNoRows) {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	g.Kind, g.Generator, g.Seed = store.Kind(kind), engine.Generator(gen), seedFromDB(seed)
	g.StartedAt, g.UpdatedAt, g.EndedAt = fromMicros(started), fromMicros(updated), timePtr(ended)
	if g.Dirs, err = readMoves(ctx, tx, id, tail); err != nil {
		return store.FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	return g, nil
}
