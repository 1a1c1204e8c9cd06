package ai

import (
	"context"
	"errors"
	"fmt"

	"github.com/ssh2048/ssh2048/engine"
)

// Evaluation is the search's value of every move from one board: what a
// review of a game compares the move played with.
type Evaluation struct {
	// Values holds each move's expected heuristic value, indexed by
	// engine.Direction; only those marked Legal mean anything.
	Values [4]float64
	Legal  [4]bool
	Nodes  int // chance nodes expanded
}

// Best is the legal move of highest value (the first in
// engine.Directions() order on a tie) and that value; ok is false when no
// move is legal.
func (e Evaluation) Best() (dir engine.Direction, value float64, ok bool) {
	for _, d := range engine.Directions() {
		if e.Legal[d] && (!ok || e.Values[d] > value) {
			dir, value, ok = d, e.Values[d], true
		}
	}
	return dir, value, ok
}

// errPreempted: a Pool asked the evaluation to stop for a hint; the pool
// runs it again from the start.
var errPreempted = errors.New("evaluation preempted")

// Evaluate scores every legal move from board, searched exactly depth
// player moves past it, with no time bound: unlike Search, the answer
// depends only on the board and depth, never on the machine's speed or
// load, which is what lets a review of a game be the same every time. The
// transposition table is cleared first for the same reason. It returns
// ErrNoMoves when the game is over, and the context's error if ctx ends
// first.
func (s *Searcher) Evaluate(ctx context.Context, board engine.Board, depth int) (Evaluation, error) {
	if !board.CanMove() {
		return Evaluation{}, fmt.Errorf("evaluate %s: %w", board.String(), ErrNoMoves)
	}
	if depth < 0 {
		return Evaluation{}, fmt.Errorf("evaluate: depth %d", depth)
	}
	s.ctx, s.timed, s.aborted, s.nodes = ctx, false, false, 0
	defer func() { s.ctx = nil }()
	var ev Evaluation
	if bb, ok := useBitboard(board); ok {
		if s.tt == nil {
			s.tt = newTransTable()
		}
		s.tt.reset()
		b := uint64(bb)
		for _, d := range engine.Directions() {
			nb := s.t.move(b, d)
			if nb == b {
				continue
			}
			ev.Legal[d] = true
			if depth == 0 {
				ev.Values[d] = float64(s.heuristic(nb))
			} else {
				ev.Values[d] = float64(s.chance(nb, 1, depth))
			}
		}
	} else {
		for _, d := range engine.Directions() {
			nb := board
			if _, moved := nb.Move(d); !moved {
				continue
			}
			ev.Legal[d] = true
			if depth == 0 {
				ev.Values[d] = s.genericHeuristic(&nb)
			} else {
				ev.Values[d] = s.genericChance(&nb, 1, depth)
			}
		}
	}
	ev.Nodes = s.nodes
	if s.aborted {
		if err := ctx.Err(); err != nil {
			return Evaluation{}, fmt.Errorf("evaluate: %w", err)
		}
		return Evaluation{}, errPreempted
	}
	return ev, nil
}
