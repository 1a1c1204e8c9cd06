package tui

import (
	"context"
	"fmt"
	"sync"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// Store is what the game screen needs from storage, for one player and
// every board size. SeatStore is the game service's; tests can use
// NewGuestStore.
type Store interface {
	// Open returns the player's unfinished game of that size, or a new one
	// when fresh is set (the current game then ends; its score still
	// counts) or there is none.
	Open(ctx context.Context, size int, fresh bool) (Play, error)
	// Standings returns the top limit rows of the leaderboard for that size
	// and the player's own row (nil if none), ranks included; with limit 0,
	// only the player's row (the header's rank, read after every move that
	// scores). It runs in a tea.Cmd, so it may overlap calls on a Play.
	Standings(ctx context.Context, size, limit int) (top []Standing, me *Standing, err error)
}

// Play is one open game that saves itself move by move; the game
// service's *game.Play is one. The TUI calls it one call at a time, in
// the order of the player's keys: Move in a tea.Cmd, so that the screen
// is not held while the move commits, and the rest from Update, never
// while a Move runs (a Play's reads may wait for its commit).
type Play interface {
	Board() engine.Board
	Size() int
	Score() int
	Moves() int
	Won() bool
	Over() bool
	// Move plays d and returns once the move is durable; a move that
	// changes nothing is not stored, and a move that ends the game also
	// records the end. game.ErrTakenOver (errors.Is) means a newer
	// session of the same player has the game: the TUI says so and ends.
	// On another error the game in
	// memory may be ahead of the store: the TUI closes it and opens the
	// stored one again.
	Move(ctx context.Context, d engine.Direction) (engine.Result, error)
	// MarkAssisted records that the AI hinted or played in this game.
	// The TUI calls it at most once per game per session.
	MarkAssisted(ctx context.Context) error
	// Watchers is how many spectators watch the game right now (0 for a
	// guest's game: those are never watched). The header shows it.
	Watchers() int
	// Close gives the game up; it stays stored, ready to resume.
	Close()
}

// Standing is one row of a leaderboard.
type Standing struct {
	Rank    int    // 1 is best
	Player  string // display name
	Tag     string // shown beside the name when another on the board looks the same; "" for none
	Score   int    // best score for the size
	MaxTile int    // largest tile of that game
	GameID  int64  // that game, to watch or replay it; 0: none to show
	Ended   bool   // the game is over (replayed), not in progress (watched if someone plays it)
}

// Hinter is the AI behind hints and autoplay. It is optional: without one
// the AI keys are hidden. Its methods run in a tea.Cmd, never in Update.
// The two are separate so that a shared AI can serve a player waiting for
// a hint before a game it is playing by itself (*ai.Pool does).
type Hinter interface {
	// Hint suggests a move to a player who is waiting for it.
	Hint(ctx context.Context, b engine.Board) (engine.Direction, error)
	// Autoplay picks the AI's own next move; it may wait behind hints.
	Autoplay(ctx context.Context, b engine.Board) (engine.Direction, error)
}

// Leaderboard is the read-only part of a Store, for guests who can look
// at the leaderboard without being on it.
type Leaderboard interface {
	Standings(ctx context.Context, size, limit int) (top []Standing, me *Standing, err error)
}

// GuestStore keeps a guest's games in memory for the session and saves
// nothing. The leaderboard, if given, is shown read-only.
type GuestStore struct {
	board Leaderboard
	seed  func() uint64

	mu    sync.Mutex
	games map[int]*memGame
}

// NewGuestStore returns a Store for a guest. board may be nil (an empty
// leaderboard); seed may be nil (random seeds).
func NewGuestStore(board Leaderboard, seed func() uint64) *GuestStore {
	if seed == nil {
		seed = store.NewSeed
	}
	return &GuestStore{board: board, seed: seed, games: map[int]*memGame{}}
}

// Open returns the guest's game of that size from this session, or a
// fresh one.
func (s *GuestStore) Open(_ context.Context, size int, fresh bool) (Play, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.games[size]; g != nil && !fresh {
		return g, nil
	}
	g, err := engine.PCG.NewGame(size, s.seed())
	if err != nil {
		return nil, fmt.Errorf("guest game %d×%d: %w", size, size, err)
	}
	s.games[size] = &memGame{g}
	return s.games[size], nil
}

// Standings returns the public leaderboard, never with a row for the guest.
func (s *GuestStore) Standings(ctx context.Context, size, limit int) ([]Standing, *Standing, error) {
	if s.board == nil {
		return nil, nil, nil
	}
	top, _, err := s.board.Standings(ctx, size, limit)
	return top, nil, err
}

// memGame is a game that lives in memory only.
type memGame struct{ *engine.Game }

func (g *memGame) Move(_ context.Context, d engine.Direction) (engine.Result, error) {
	return g.Game.Move(d), nil
}

func (*memGame) MarkAssisted(context.Context) error { return nil }
func (*memGame) Watchers() int                      { return 0 }
func (*memGame) Close()                             {}
