package db

import (
	"fmt"
	"log/slog"

	"github.com/ssh2048/ssh2048/engine"
)

// What package db shares with the other implementations of game.Store
// (package db/pg): the checks every store makes before it writes, and the
// replay that rebuilds a stored game, so that both stores refuse the same
// arguments and rebuild games the same way.

// CheckGame refuses a board size or game kind no store takes (ErrInvalid).
func CheckGame(size int, kind Kind) error { return checkSizeKind(size, kind) }

// CheckMove refuses a move no store takes (ErrInvalid): a bad direction or
// sequence number, a state that does not count the move, a bad board.
func CheckMove(seq int, d engine.Direction, st MoveState) error {
	if !d.Valid() || seq < 0 || st.Moves != seq+1 {
		return fmt.Errorf("%w: move %d (%v), state says %d moves", ErrInvalid, seq, d, st.Moves)
	}
	return checkState(st)
}

// CheckState refuses a state no store takes (ErrInvalid).
func CheckState(st MoveState) error { return checkState(st) }

// ScoreBucket is the bucket of a score in score_buckets (digits * 1000 +
// the first three digits), and the highest score in that bucket.
func ScoreBucket(score int64) (bucket, top int64) { return scoreBucket(score) }

// ErrReplayDiverged: replaying a game's stored moves does not give its
// stored move count, so its moves can no longer be continued; the store
// ends it as stored and starts another.
var ErrReplayDiverged = errReplayDiverged

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
		log.Error("db: REPLAY MISMATCH: stored snapshot and replay of the stored moves disagree",
			"game", g.ID, "player", g.PlayerID, "size", g.Size, "seed", g.Seed, "stored_moves", len(dirs),
			"snapshot", fmt.Sprintf("%+v", stored), "replay", fmt.Sprintf("%+v", got))
		if g.Engine.Moves() != len(dirs) {
			return fmt.Errorf("load game %d: %w", g.ID, errReplayDiverged)
		}
	}
	return nil
}

// LiveGame is a game a session holds right now on some node of a shared
// store, as its snapshot columns say (a spectator's first board before
// the holding node's events arrive).
type LiveGame struct {
	GameID      int64
	Player      string // display name as stored
	Fingerprint string
	Size        int
	Kind        Kind
	Board       string // engine.Board.String()
	Score       int
	Moves       int
	Won         bool
	Node        string // the node holding it
	Contest     string // "" for free play, else "daily:DAY" or "race:ID"
}
