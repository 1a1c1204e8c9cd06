package ai

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// ErrNoMoves is returned for a board on which no direction changes anything
// (the game is over).
var ErrNoMoves = errors.New("no move changes the board")

const (
	// cprobThreshold ends a branch whose probability of ever being played
	// falls below it: rare branches are scored by the heuristic instead.
	cprobThreshold = 1e-4
	// A spawned tile is a 2 nine times in ten, else a 4 (as in the engine).
	spawnTwoProbability  = 0.9
	spawnFourProbability = 0.1
)

// Budget bounds one search.
type Budget struct {
	// Time bounds the wall-clock time of a search; 0 means no time bound.
	// The search deepens one level at a time and stops early when the next
	// level is not expected to finish in time; a level that runs past the
	// bound is abandoned and the previous level's move is played.
	Time time.Duration
	// MaxDepth caps the number of player moves searched after the root
	// move. 0 means nneonneo's adaptive cap on 4×4, max(3, distinct tiles
	// − 2), and 2 on other sizes.
	MaxDepth int
}

// DefaultBudget is the budget hints, autoplay and `ssh2048 ai` use. It is
// set to meet the AI's targets on the 2-core server: a think time of at
// most 25 ms at p99, while reaching 16384 in a good share of 4×4 games
// (docs/performance.md, AI, has the targets and the figures).
func DefaultBudget() Budget { return Budget{Time: 12 * time.Millisecond} }

// genericTimeShare is the fraction of the budget's time a search on a board
// other than 4×4 gets: the generic board is many times slower per node,
// so a deep search there would not pay for itself.
const genericTimeShare = 2

// Result describes a finished search.
type Result struct {
	Dir     engine.Direction
	Depth   int // deepest level completed
	Nodes   int // chance nodes expanded
	Elapsed time.Duration
}

// Searcher runs one search at a time and keeps its transposition table
// between searches (cleared by generation, never reallocated). It is not safe
// for concurrent use; a Pool gives each worker its own.
type Searcher struct {
	t  *Tables
	p  *powers
	tt *transTable // allocated on the first 4×4 search

	ctx      context.Context
	stop     *atomic.Bool // when set (by a Pool), ends the search early
	deadline time.Time
	timed    bool
	aborted  bool
	nodes    int
}

// NewSearcher returns a searcher; the shared move and heuristic tables are
// built on first use by any searcher.
func NewSearcher() *Searcher {
	return &Searcher{t: SharedTables(), p: sharedPowers()}
}

// Search returns the best move for board within budget. It stops early, with
// the best move found so far, when ctx is done; it returns ErrNoMoves when
// the game is over.
func (s *Searcher) Search(ctx context.Context, board engine.Board, budget Budget) (Result, error) {
	start := time.Now()
	if !board.CanMove() {
		return Result{}, fmt.Errorf("search %s: %w", board.String(), ErrNoMoves)
	}
	s.ctx = ctx
	s.aborted = false
	s.nodes = 0
	deadline, timed := ctx.Deadline()
	if budget.Time > 0 {
		share := budget.Time
		if board.Size() != 4 {
			share /= genericTimeShare
		}
		if d := start.Add(share); !timed || d.Before(deadline) {
			deadline, timed = d, true
		}
	}
	s.deadline, s.timed = deadline, timed

	var res Result
	if bb, ok := useBitboard(board); ok {
		res = s.searchBitboard(uint64(bb), budget.MaxDepth)
	} else {
		res = s.searchGeneric(board, budget.MaxDepth)
	}
	res.Nodes = s.nodes
	res.Elapsed = time.Since(start)
	s.ctx = nil
	return res, nil
}

// useBitboard packs board when the bitboard plays it exactly: 4×4, tiles up
// to 2^15, and at most one 2^15 (two of them would merge in the engine but
// not in a nibble).
func useBitboard(board engine.Board) (Bitboard, bool) {
	bb, ok := FromBoard(board)
	if !ok {
		return 0, false
	}
	top := 0
	for x := uint64(bb); x != 0; x >>= 4 {
		if x&0xF == MaxBitboardExponent {
			top++
		}
	}
	return bb, top < 2
}

// expired reports whether the deadline has passed, the context is done or
// the pool asked the search to stop. The search asks every so many nodes
// (reading the clock at every node would cost more than the node) and
// before each level. It also yields the processor: a search is the one
// long-running computation in the server, and a player's keystroke waiting
// behind it should wait a fraction of a millisecond, not the scheduler's
// 10 ms time slice.
func (s *Searcher) expired() bool {
	runtime.Gosched()
	return (s.timed && !time.Now().Before(s.deadline)) ||
		s.ctx.Err() != nil ||
		(s.stop != nil && s.stop.Load())
}

const timeCheckMask = 255 // check the clock every 256 chance nodes

// deepen runs iterative deepening: level 0 (the root moves scored by the
// heuristic) always completes, so there is always an answer; each further
// level runs only if the previous level's time, grown by the observed
// growth rate, says it can finish before the deadline.
func (s *Searcher) deepen(maxDepth int, level func(depth int) (engine.Direction, bool)) Result {
	var res Result
	var prev time.Duration
	for depth := 0; depth <= maxDepth; depth++ {
		if depth > 0 && s.expired() {
			break
		}
		began := time.Now()
		dir, ok := level(depth)
		if !ok {
			break
		}
		res.Dir, res.Depth = dir, depth
		took := time.Since(began)
		if s.timed {
			growth := 8.0
			if prev > 50*time.Microsecond {
				growth = min(max(float64(took)/float64(prev), 2), 16)
			}
			if time.Now().Add(time.Duration(float64(took) * growth)).After(s.deadline) {
				break
			}
		}
		prev = took
	}
	return res
}

func (s *Searcher) searchBitboard(b uint64, maxDepth int) Result {
	if s.tt == nil {
		s.tt = newTransTable()
	}
	s.tt.reset()
	if maxDepth <= 0 {
		maxDepth = max(3, distinctTiles(b)-2)
	}
	return s.deepen(maxDepth, func(depth int) (engine.Direction, bool) {
		best, bestScore := engine.Direction(0), float32(-1)
		for _, d := range engine.Directions() {
			nb := s.t.move(b, d)
			if nb == b {
				continue
			}
			var v float32
			if depth == 0 {
				v = s.heuristic(nb)
			} else {
				v = s.chance(nb, 1, depth)
			}
			if s.aborted {
				return 0, false
			}
			if v > bestScore {
				best, bestScore = d, v
			}
		}
		return best, true
	})
}

// heuristic scores a board by its rows and its columns.
func (s *Searcher) heuristic(b uint64) float32 {
	h := &s.t.heur
	c := transpose(b)
	return h[b&rowMask] + h[b>>16&rowMask] + h[b>>32&rowMask] + h[b>>48] +
		h[c&rowMask] + h[c>>16&rowMask] + h[c>>32&rowMask] + h[c>>48]
}

// chance is the expected value of board b before a tile spawns, searched
// depth more player moves deep; cprob is the probability of reaching b.
func (s *Searcher) chance(b uint64, cprob float32, depth int) float32 {
	if depth == 0 || cprob < cprobThreshold {
		return s.heuristic(b)
	}
	if v, ok := s.tt.lookup(b, depth); ok {
		return v
	}
	s.nodes++
	if s.nodes&timeCheckMask == 0 && s.expired() {
		s.aborted = true
	}
	if s.aborted {
		return 0
	}
	empty := countEmpty(b)
	cprob /= float32(empty)
	var sum float32
	tile := uint64(1)
	for rest := b; tile != 0; rest, tile = rest>>4, tile<<4 {
		if rest&0xF != 0 {
			continue
		}
		sum += s.max(b|tile, cprob*spawnTwoProbability, depth)*spawnTwoProbability +
			s.max(b|tile<<1, cprob*spawnFourProbability, depth)*spawnFourProbability
	}
	v := sum / float32(empty)
	if !s.aborted {
		s.tt.store(b, depth, v)
	}
	return v
}

// max is the value of the best move from b; 0 when no move is possible (the
// game is lost, and every live board scores far above 0).
func (s *Searcher) max(b uint64, cprob float32, depth int) float32 {
	t := s.t
	var best float32
	if nb := t.moveLeft(b); nb != b {
		best = max(best, s.chance(nb, cprob, depth-1))
	}
	if nb := t.moveRight(b); nb != b {
		best = max(best, s.chance(nb, cprob, depth-1))
	}
	c := transpose(b)
	if nb := t.moveUp(b, c); nb != b {
		best = max(best, s.chance(nb, cprob, depth-1))
	}
	if nb := t.moveDown(b, c); nb != b {
		best = max(best, s.chance(nb, cprob, depth-1))
	}
	return best
}
