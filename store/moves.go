package store

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/ssh2048/ssh2048/engine"
)

// The checks every store makes before it writes, and the replay that
// rebuilds a stored game, so that all stores refuse the same arguments and
// rebuild games the same way.

// CheckGame refuses a board size or game kind no store takes (ErrInvalid).
func CheckGame(size int, kind Kind) error {
	if size < engine.MinSize || size > engine.MaxSize {
		return fmt.Errorf("%w: board size %d (want %d to %d)", ErrInvalid, size, engine.MinSize, engine.MaxSize)
	}
	if !kind.Valid() {
		return fmt.Errorf("%w: game kind %q", ErrInvalid, kind)
	}
	return nil
}

// CheckMove refuses a move no store takes (ErrInvalid): a bad direction or
// sequence number, a state that does not count the move, a bad board.
func CheckMove(seq int, d engine.Direction, st MoveState) error {
	if !d.Valid() || seq < 0 || st.Moves != seq+1 {
		return fmt.Errorf("%w: move %d (%v), state says %d moves", ErrInvalid, seq, d, st.Moves)
	}
	return CheckState(st)
}

// CheckState refuses a state no store takes (ErrInvalid).
func CheckState(st MoveState) error {
	if st.Moves < 0 || st.Score < 0 || st.MaxTile < 0 {
		return fmt.Errorf("%w: negative count in %+v", ErrInvalid, st)
	}
	if _, err := engine.ParseBoard(st.Board); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// ErrReplayDiverged: replaying a game's stored moves does not give its
// stored move count, so its moves can no longer be continued; the store
// ends it as stored and starts another.
var ErrReplayDiverged = errors.New("replay diverged from the stored game")

// Rebuild replays g's stored moves onto g.Engine and compares the result
// with the stored snapshot: a mismatch is logged as REPLAY MISMATCH (the
// replay wins), and a replay that does not even give the stored number of
// moves is ErrReplayDiverged.
func Rebuild(log *slog.Logger, g *SavedGame, gen engine.Generator, dirs []engine.Direction, stored MoveState) error {
	var err error
	g.Engine, err = gen.Replay(g.Size, g.Seed, dirs)
	if err != nil {
		return fmt.Errorf("load game %d: replay: %w", g.ID, err)
	}
	if got := StateOf(g.Engine); got != stored || len(dirs) != stored.Moves {
		log.Error("store: REPLAY MISMATCH: stored snapshot and replay of the stored moves disagree",
			"game", g.ID, "player", g.PlayerID, "size", g.Size, "seed", g.Seed, "stored_moves", len(dirs),
			"snapshot", fmt.Sprintf("%+v", stored), "replay", fmt.Sprintf("%+v", got))
		if g.Engine.Moves() != len(dirs) {
			return fmt.Errorf("load game %d: %w", g.ID, ErrReplayDiverged)
		}
	}
	return nil
}

// MoveRows is what ScanMoves reads: *sql.Rows and pgx.Rows alike.
type MoveRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanMoves reads a game's moves from rows of (seq, dir) in seq order,
// as PostgreSQL keeps them (one row per move), for Rebuild. A gap in the
// sequence is an error: a game missing a move cannot be replayed. The
// caller closes rows.
func ScanMoves(rows MoveRows) ([]engine.Direction, error) {
	var dirs []engine.Direction
	for rows.Next() {
		var seq, dir int64
		if err := rows.Scan(&seq, &dir); err != nil {
			return nil, fmt.Errorf("read moves: %w", err)
		}
		if seq != int64(len(dirs)) {
			return nil, fmt.Errorf("read moves: move %d missing", len(dirs))
		}
		dirs = append(dirs, engine.Direction(dir))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	return dirs, nil
}
