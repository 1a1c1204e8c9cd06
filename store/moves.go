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
// as both stores kept them before the chunks (a row a move; what the
// migrations' Down puts back). A gap in the
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

// Both stores keep a game's moves as text, one digit a move
// (engine.Direction's value, MoveDigit): the moves since the last full
// chunk in the game's own row (games.tail), appended by the guarded
// update that stores each move, and the full chunks of ChunkLen moves as
// rows of move_chunks (SQLite's migration 00015, PostgreSQL's 00019). A
// move so writes only its game's row, which its group commit writes
// anyway, instead of a row of its own on another page; a chunk row is
// written once every ChunkLen moves.

// ChunkLen is how many moves a row of move_chunks holds. The migrations
// check the same number; changing it needs a migration.
const ChunkLen = 64

// MoveDigit is d as games.tail and move_chunks keep it.
func MoveDigit(d engine.Direction) string { return string(rune('0' + d)) }

// ScanMoveChunks reads a game's moves from rows of (first_seq, digits)
// in first_seq order: its chunks, and last, if the query gives it so, its
// tail. A chunk out of place is an error: a game missing a move cannot be
// replayed. The caller closes rows.
func ScanMoveChunks(rows MoveRows) ([]engine.Direction, error) {
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
		var err error
		if dirs, err = AppendMoveDigits(dirs, chunk); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read moves: %w", err)
	}
	return dirs, nil
}

// AppendMoveDigits appends the moves of s, as MoveDigit wrote them, to
// dirs.
func AppendMoveDigits(dirs []engine.Direction, s string) ([]engine.Direction, error) {
	for i := range len(s) {
		d := engine.Direction(s[i] - '0')
		if s[i] < '0' || !d.Valid() {
			return nil, fmt.Errorf("read moves: move %d is %q, not a direction", len(dirs), s[i])
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}
