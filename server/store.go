package server

import (
	"context"

	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/engine"
)

// Store is what the server needs from storage; *db.Store implements it.
type Store interface {
	// UpsertPlayer records the key that authenticated and the name it
	// asked for, sanitizing the name.
	UpsertPlayer(ctx context.Context, fingerprint, keyType, rawName string) (db.Player, error)
	// LoadOrCreateGame returns the player's unfinished game of that size
	// and kind, replayed, or a new one.
	LoadOrCreateGame(ctx context.Context, playerID int64, size int, kind db.Kind) (*db.SavedGame, error)
	// NewGame starts a new game, ending any unfinished one of that size
	// and kind.
	NewGame(ctx context.Context, playerID int64, size int, kind db.Kind) (*db.SavedGame, error)
	// AppendMove stores move seq (0-based) of a game; it is durable when
	// AppendMove returns. A stale writer gets db.ErrConflict.
	AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st db.MoveState) error
	// EndGame marks a game finished.
	EndGame(ctx context.Context, gameID int64, st db.MoveState) error
	// MarkAssisted turns a human game into an assisted one.
	MarkAssisted(ctx context.Context, gameID int64) error
	// Leaderboard lists the best game of each player, best first.
	Leaderboard(ctx context.Context, size int, kind db.Kind, limit int) ([]db.Entry, error)
	// PlayerRank returns the player's best game with its rank, or
	// db.ErrNotFound.
	PlayerRank(ctx context.Context, playerID int64, size int, kind db.Kind) (db.Entry, error)
	// PlayerGames lists the player's games, newest first.
	PlayerGames(ctx context.Context, playerID int64, limit int) ([]db.GameSummary, error)
}
