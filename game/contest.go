package game

import (
	"context"
	"log/slog"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// The seam for contests built on the service (package race): a contest
// opens each player's game on its seed and deadline with a MoveHook that
// its Play tells of every move, and reads the service's store, bus and
// clock. Nothing here knows what a race is: the race owns its rooms,
// clock, results and protocol between nodes, and the service owns the
// games.

// MoveHook is told by a contest's game of every move that changed its
// board, once the move is durable: a race, which publishes the racer's
// progress (or, on a racer's node, tells the race's owner). It is called
// on the mover's goroutine, not under the Play's lock (the race reads
// every racer's game), with the points the move gained.
type MoveHook interface {
	Moved(p *Play, gained int)
}

// OpenContest opens the player's game of a contest that is not the daily
// challenge (contest "race:ID"), of that size and kind, started on seed
// if need be; its moves fail with ErrTimeUp from deadline on, and hook,
// if not nil, is told of every one that changed the board. A guest's
// game lives in memory, as their other games do.
func (st *Seat) OpenContest(ctx context.Context, size int, kind store.Kind, contest string, seed uint64, deadline time.Time, hook MoveHook) (*Play, error) {
	key := gameKey{st.player.ID, size, kind, contest}
	if st.player.Guest {
		key.player = 0
		p, err := st.openGuest(key, seed, false)
		if err == nil {
			p.mu.Lock()
			p.deadline, p.hook = deadline, hook
			p.mu.Unlock()
		}
		return p, err
	}
	return st.open(ctx, key, func(p *Play) (*store.SavedGame, error) {
		p.deadline, p.hook = deadline, hook
		return st.svc.store.OpenContestGame(ctx, st.player.ID, size, kind, contest, seed)
	})
}

// EndContest ends the game's contest for this Play: a move being
// committed is waited for, and every later move gets ErrTimeUp, whatever
// this node's clock says of the deadline. A contest run by another node
// ends its players' games here when it says its time is up, so that the
// last state it is told of holds every move that was answered.
func (p *Play) EndContest() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.contestEnded = true
}

// Store returns the store the service plays on, for the packages built
// on it that store what is theirs (a race's result and ratings).
func (s *Service) Store() store.Store { return s.store }

// Bus returns the bus to the other nodes on the store (WithBus), nil on
// a single node.
func (s *Service) Bus() Bus { return s.bus }

// Logger returns the service's logger.
func (s *Service) Logger() *slog.Logger { return s.log }

// CheckOpen returns ErrShuttingDown once the service is closed to new
// games (Close), nil before.
func (s *Service) CheckOpen() error { return s.open() }
