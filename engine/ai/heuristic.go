package ai

import (
	"math"
	"sync"

	"github.com/ssh2048/ssh2048/engine"
)

// The heuristic is nneonneo/2048-ai's, scored line by line (every row and
// every column) and summed. A line earns points for empty cells and for
// neighbours that could merge, and loses points for breaking monotonicity
// (tiles should rise or fall steadily along a line, so large tiles gather in
// a corner) and for the sheer weight of its tiles (a board that keeps large
// tiles around is closer to filling up). Every line starts from
// lostPenalty, so any live board outscores a dead one, which scores 0.
const (
	lostPenalty        = 200000.0
	monotonicityPower  = 4.0
	monotonicityWeight = 47.0
	sumPower           = 3.5
	sumWeight          = 11.0
	mergesWeight       = 700.0
	emptyWeight        = 270.0
)

// powers holds rank^sumPower and rank^monotonicityPower for every exponent,
// so that the generic heuristic never calls math.Pow in the search.
type powers struct {
	sum, mono [engine.MaxExponent + 1]float64
}

// sharedPowers is built once and only read afterwards (safe to share).
var sharedPowers = sync.OnceValue(newPowers)

func newPowers() *powers {
	p := new(powers)
	for r := range p.sum {
		p.sum[r] = math.Pow(float64(r), sumPower)
		p.mono[r] = math.Pow(float64(r), monotonicityPower)
	}
	return p
}

// lineHeuristic scores one line of exponents, first cell first.
func (p *powers) lineHeuristic(line []uint8) float64 {
	var sum float64
	empty, merges := 0, 0
	var prev uint8
	counter := 0 // length of the current run of equal tiles, minus one
	for _, rank := range line {
		sum += p.sum[rank]
		if rank == 0 {
			empty++
			continue
		}
		if prev == rank {
			counter++
		} else if counter > 0 {
			merges += 1 + counter
			counter = 0
		}
		prev = rank
	}
	if counter > 0 {
		merges += 1 + counter
	}
	var monoLeft, monoRight float64
	for i := 1; i < len(line); i++ {
		a, b := line[i-1], line[i]
		if a > b {
			monoLeft += p.mono[a] - p.mono[b]
		} else {
			monoRight += p.mono[b] - p.mono[a]
		}
	}
	return lostPenalty + emptyWeight*float64(empty) + mergesWeight*float64(merges) -
		monotonicityWeight*min(monoLeft, monoRight) - sumWeight*sum
}

// rowHeuristic scores one packed 4-cell row for the bitboard table.
func rowHeuristic(row uint16) float32 {
	line := [4]uint8{uint8(row & 0xF), uint8(row >> 4 & 0xF), uint8(row >> 8 & 0xF), uint8(row >> 12)}
	return float32(sharedPowers().lineHeuristic(line[:]))
}
