package tui

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/ssh2048/ssh2048/engine"
)

// ErrTakenOver is returned by a Store when a newer session of the same
// player has taken the game over; the TUI then says so and ends.
var ErrTakenOver = errors.New("game taken over by a newer session")

// Store is what the game screen needs from storage, for one player and
// every board size. The server adapts db to it; guests get NewGuestStore.
//
// All methods but Standings are called from the session's Update loop, one
// at a time and in the order of the player's keys. Standings runs in a
// tea.Cmd and may overlap them.
type Store interface {
	// Resume returns the game in progress for that size, or a fresh one.
	Resume(ctx context.Context, size int) (*engine.Game, error)
	// NewGame ends the current game of that size (its score still counts)
	// and starts another.
	NewGame(ctx context.Context, size int) (*engine.Game, error)
	// Record stores a move that changed g (g already has it applied) and
	// returns once it is durable.
	Record(ctx context.Context, size int, d engine.Direction, g *engine.Game) error
	// MarkAssisted flags the current game of that size as one the AI
	// touched (a hint shown or a move played). Called at most once a game.
	MarkAssisted(ctx context.Context, size int, g *engine.Game) error
	// End records that g is over.
	End(ctx context.Context, size int, g *engine.Game) error
	// Standings returns the top limit rows of the leaderboard for that size
	// and the player's own row (nil if none), ranks included.
	Standings(ctx context.Context, size, limit int) (top []Standing, me *Standing, err error)
}

// Standing is one row of a leaderboard.
type Standing struct {
	Rank    int    // 1 is best
	Player  string // display name
	Score   int    // best score for the size
	MaxTile int    // largest tile reached in that game
}

// Hinter suggests a move for a board. It is optional: without one the AI
// keys are hidden. Suggest runs in a tea.Cmd, never in Update.
type Hinter interface {
	Suggest(ctx context.Context, b engine.Board) (engine.Direction, error)
}

// Leaderboard is the read-only part of a Store, for guests who can look
// at the leaderboard without being on it.
type Leaderboard interface {
	Standings(ctx context.Context, size, limit int) (top []Standing, me *Standing, err error)
}

// TakenOverMsg ends a session whose game a newer session of the same
// player took over. The server sends it with Program.Send.
type TakenOverMsg struct{}

// ShutdownMsg ends a session because the server is restarting; the game
// is already saved.
type ShutdownMsg struct{}

// GuestStore keeps a guest's games in memory for the session and records
// nothing. The leaderboard, if given, is shown read-only.
type GuestStore struct {
	board Leaderboard
	seed  func() uint64

	mu    sync.Mutex
	games map[int]*engine.Game
}

// NewGuestStore returns a Store for a guest. board may be nil (an empty
// leaderboard); seed may be nil (random seeds).
func NewGuestStore(board Leaderboard, seed func() uint64) *GuestStore {
	if seed == nil {
		seed = rand.Uint64
	}
	return &GuestStore{board: board, seed: seed, games: map[int]*engine.Game{}}
}

// Resume returns the guest's game of that size from this session, or a
// fresh one.
func (s *GuestStore) Resume(ctx context.Context, size int) (*engine.Game, error) {
	s.mu.Lock()
	g := s.games[size]
	s.mu.Unlock()
	if g != nil {
		return g, nil
	}
	return s.NewGame(ctx, size)
}

// NewGame starts a fresh game of that size.
func (s *GuestStore) NewGame(_ context.Context, size int) (*engine.Game, error) {
	g, err := engine.NewGame(size, s.seed())
	if err != nil {
		return nil, fmt.Errorf("guest game %d×%d: %w", size, size, err)
	}
	s.mu.Lock()
	s.games[size] = g
	s.mu.Unlock()
	return g, nil
}

// Record does nothing: guests' moves are not stored.
func (*GuestStore) Record(context.Context, int, engine.Direction, *engine.Game) error { return nil }

// MarkAssisted does nothing.
func (*GuestStore) MarkAssisted(context.Context, int, *engine.Game) error { return nil }

// End does nothing.
func (*GuestStore) End(context.Context, int, *engine.Game) error { return nil }

// Standings returns the public leaderboard, never with a row for the guest.
func (s *GuestStore) Standings(ctx context.Context, size, limit int) ([]Standing, *Standing, error) {
	if s.board == nil {
		return nil, nil, nil
	}
	top, _, err := s.board.Standings(ctx, size, limit)
	return top, nil, err
}
