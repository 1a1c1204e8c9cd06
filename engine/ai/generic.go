package ai

import "github.com/ssh2048/ssh2048/engine"

// The generic search is the bitboard search's expectimax on engine.Board,
// for every size the bitboard cannot hold (3×3, 5×5 .. 8×8, and 4×4 boards
// with tiles past 2^15). It has no tables and no transposition table, so it
// is much slower per node; its budget is correspondingly smaller (see
// genericTimeShare and the depth cap below).

// genericMaxDepth caps the generic search when the budget sets no cap.
const genericMaxDepth = 2

func (s *Searcher) searchGeneric(b engine.Board, maxDepth int) Result {
	if maxDepth <= 0 {
		maxDepth = genericMaxDepth
	}
	return s.deepen(maxDepth, func(depth int) (engine.Direction, bool) {
		best, bestScore := engine.Direction(0), -1.0
		for _, d := range engine.Directions() {
			nb := b
			if _, moved := nb.Move(d); !moved {
				continue
			}
			var v float64
			if depth == 0 {
				v = s.genericHeuristic(&nb)
			} else {
				v = s.genericChance(&nb, 1, depth)
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

// genericHeuristic sums the line heuristic over every row and column.
func (s *Searcher) genericHeuristic(b *engine.Board) float64 {
	n := b.Size()
	var line [engine.MaxSize]uint8
	var h float64
	for r := range n {
		for c := range n {
			line[c] = b.At(r, c)
		}
		h += s.p.lineHeuristic(line[:n])
	}
	for c := range n {
		for r := range n {
			line[r] = b.At(r, c)
		}
		h += s.p.lineHeuristic(line[:n])
	}
	return h
}

func (s *Searcher) genericChance(b *engine.Board, cprob float64, depth int) float64 {
	if depth == 0 || cprob < cprobThreshold {
		return s.genericHeuristic(b)
	}
	s.nodes++
	if s.nodes&timeCheckMask == 0 && s.expired() {
		s.aborted = true
	}
	if s.aborted {
		return 0
	}
	n := b.Size()
	empty := b.Empty()
	cprob /= float64(empty)
	var sum float64
	for r := range n {
		for c := range n {
			if b.At(r, c) != 0 {
				continue
			}
			nb := *b
			nb.Set(r, c, 1)
			sum += s.genericMax(&nb, cprob*spawnTwoProbability, depth) * spawnTwoProbability
			nb.Set(r, c, 2)
			sum += s.genericMax(&nb, cprob*spawnFourProbability, depth) * spawnFourProbability
		}
	}
	return sum / float64(empty)
}

func (s *Searcher) genericMax(b *engine.Board, cprob float64, depth int) float64 {
	var best float64
	for _, d := range engine.Directions() {
		nb := *b
		if _, moved := nb.Move(d); moved {
			best = max(best, s.genericChance(&nb, cprob, depth-1))
		}
	}
	return best
}
