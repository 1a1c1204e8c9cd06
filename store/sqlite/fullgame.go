package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
)

// FullGame is a stored game with everything it was played from: who played
// it, its tile generator, seed and every move. Replays and records are made
// from it. Its seed tells every tile to come: it must not leave the server
// while the game can be played (EndedAt nil).
type FullGame struct {
	GameSummary
	PlayerID    int64
	Player      string // display name
	Fingerprint string
	Generator   engine.Generator
	Seed        uint64
	Dirs        []engine.Direction // every move that changed the board, in order
	Board       string             // the stored snapshot after the last move (engine.Board.String)
}

// FullGame reads game id, its player and its moves in one read
// transaction, so that a concurrent append cannot slip between them.
func (s *Store) FullGame(ctx context.Context, id int64) (FullGame, error) {
	tx, err := s.read.BeginTx(ctx, nil)
	if err != nil {
		return FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	defer tx.Rollback()
	g := FullGame{GameSummary: GameSummary{ID: id}}
	var (
		kind             string
		seed             int64
		gen              uint8
		started, updated int64
		ended            sql.NullInt64
	)
	err = tx.QueryRowContext(ctx, `
		SELECT g.player_id, p.name, p.fingerprint, g.size, g.kind, g.generator, g.seed,
		       g.score, g.max_tile, g.moves, g.won, g.board, g.contest, g.started_at, g.updated_at, g.ended_at
		FROM games g JOIN players p ON p.id = g.player_id WHERE g.id = ?`, id,
	).Scan(&g.PlayerID, &g.Player, &g.Fingerprint, &g.Size, &kind, &gen, &seed,
		&g.Score, &g.MaxTile, &g.Moves, &g.Won, &g.Board, &g.Contest, &started, &updated, &ended)
	if errors.Is(err, sql.ErrNoRows) {
		return FullGame{}, fmt.Errorf("full game %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	g.Kind, g.Generator, g.Seed = Kind(kind), engine.Generator(gen), seedFromDB(seed)
	g.StartedAt, g.UpdatedAt, g.EndedAt = fromMicros(started), fromMicros(updated), timePtr(ended)
	if g.Dirs, err = readMoves(ctx, tx, id); err != nil {
		return FullGame{}, fmt.Errorf("full game %d: %w", id, err)
	}
	return g, nil
}
