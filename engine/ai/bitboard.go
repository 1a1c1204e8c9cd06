// Package ai suggests moves for 2048 by expectimax search: max nodes over the
// player's four moves, chance nodes over every empty cell × {2: 0.9, 4: 0.1},
// a table-driven heuristic at the leaves, after nneonneo/2048-ai.
//
// The 4×4 game is searched on a Bitboard (one uint64, 65,536-entry row
// tables); other sizes use the same search on the generic engine.Board at a
// smaller budget. A Pool shares a fixed number of searchers (never more than
// the cores) between hints and autoplay across the whole server, hints first.
// PlayGames plays seeded games headless for `ssh2048 ai`.
//
// The package does no I/O.
package ai

import (
	"sync"

	"github.com/ssh2048/ssh2048/engine"
)

// Bitboard is a 4×4 board in one uint64: sixteen 4-bit exponents, row-major,
// cell (r, c) in bits 16r+4c .. 16r+4c+3. Row 0 is the top, column 0 the left,
// so a row's first cell is its lowest nibble and "left" slides toward it.
// Exponents above 15 (tiles over 32768) do not fit; see FromBoard.
type Bitboard uint64

const rowMask = 0xFFFF

// MaxBitboardExponent is the largest exponent a nibble holds (2^15 = 32768).
// Two such tiles do not merge on a Bitboard, whereas the engine would make a
// 65536; the search therefore leaves boards with two of them to the generic
// path (see useBitboard).
const MaxBitboardExponent = 15

// Tables are the precomputed row tables every Bitboard operation reads
// (about 1.5 MiB). SharedTables builds them once, on first use; they are
// never written again, so any number of goroutines may read them at once
// without locks.
type Tables struct {
	// rowLeft[r] and rowRight[r] are r XOR (r slid left/right): xor-ing a
	// delta into the board moves that row. Zero means the row cannot move.
	rowLeft, rowRight [1 << 16]uint16
	// colUp[r] and colDown[r] are the same deltas for a column whose four
	// cells, top first, are the nibbles of r, already spread into column 0
	// of a board (nibbles 0, 4, 8, 12), ready to shift into place.
	colUp, colDown [1 << 16]uint64
	// gained[r] is the points a slide of row r earns. It is the same both
	// ways: merges pair up equal neighbours inside each run of equal tiles,
	// and a run of k tiles gives k/2 merges of the same value from either end.
	gained [1 << 16]uint32
	// heur[r] is the heuristic value of one row (or column), see heuristic.go.
	heur [1 << 16]float32
}

// SharedTables returns the process's one set of tables, building it on the
// first call. Hot loops should call it once and keep the pointer.
var SharedTables = sync.OnceValue(buildTables)

func buildTables() *Tables {
	t := new(Tables)
	for r := range 1 << 16 {
		row := uint16(r)
		left, gained := slideRowLeft(row)
		rev := reverseRow(row)
		t.rowLeft[row] = row ^ left
		t.rowRight[rev] = rev ^ reverseRow(left)
		t.colUp[row] = unpackCol(row) ^ unpackCol(left)
		t.colDown[rev] = unpackCol(rev) ^ unpackCol(reverseRow(left))
		t.gained[row] = gained
		t.heur[row] = rowHeuristic(row)
	}
	return t
}

// slideRowLeft applies the rule of 2048 to one packed row. A merged tile does
// not merge again in the same move, and two 2^15 tiles do not merge (the
// result would not fit in a nibble).
func slideRowLeft(row uint16) (uint16, uint32) {
	var out [4]uint16
	n := 0
	var gained uint32
	mergeable := false // out[n-1] may still take a merge
	for i := range 4 {
		c := row >> (4 * i) & 0xF
		if c == 0 {
			continue
		}
		if mergeable && out[n-1] == c && c < MaxBitboardExponent {
			out[n-1]++
			gained += 1 << (c + 1)
			mergeable = false
			continue
		}
		out[n] = c
		n++
		mergeable = true
	}
	return out[0] | out[1]<<4 | out[2]<<8 | out[3]<<12, gained
}

func reverseRow(r uint16) uint16 {
	return r>>12 | r>>4&0x00F0 | r<<4&0x0F00 | r<<12
}

// unpackCol spreads a row's four nibbles down column 0 of a board.
func unpackCol(r uint16) uint64 {
	x := uint64(r)
	return (x | x<<12 | x<<24 | x<<36) & 0x000F_000F_000F_000F
}

// transpose swaps rows and columns (cell (r, c) goes to (c, r)).
func transpose(x uint64) uint64 {
	a1 := x & 0xF0F00F0FF0F00F0F
	a2 := x & 0x0000F0F00000F0F0
	a3 := x & 0x0F0F00000F0F0000
	a := a1 | a2<<12 | a3>>12
	b1 := a & 0xFF00FF0000FF00FF
	b2 := a & 0x00FF00FF00000000
	b3 := a & 0x00000000FF00FF00
	return b1 | b2>>24 | b3<<24
}

// move returns the board after direction d, without spawning.
func (t *Tables) move(b uint64, d engine.Direction) uint64 {
	switch d {
	case engine.Left:
		return t.moveLeft(b)
	case engine.Right:
		return t.moveRight(b)
	case engine.Up:
		return t.moveUp(b, transpose(b))
	default: // engine.Down
		return t.moveDown(b, transpose(b))
	}
}

func (t *Tables) moveLeft(b uint64) uint64 {
	return b ^ uint64(t.rowLeft[b&rowMask]) ^
		uint64(t.rowLeft[b>>16&rowMask])<<16 ^
		uint64(t.rowLeft[b>>32&rowMask])<<32 ^
		uint64(t.rowLeft[b>>48])<<48
}

func (t *Tables) moveRight(b uint64) uint64 {
	return b ^ uint64(t.rowRight[b&rowMask]) ^
		uint64(t.rowRight[b>>16&rowMask])<<16 ^
		uint64(t.rowRight[b>>32&rowMask])<<32 ^
		uint64(t.rowRight[b>>48])<<48
}

// moveUp takes the board and its transpose c, whose rows are b's columns.
func (t *Tables) moveUp(b, c uint64) uint64 {
	return b ^ t.colUp[c&rowMask] ^
		t.colUp[c>>16&rowMask]<<4 ^
		t.colUp[c>>32&rowMask]<<8 ^
		t.colUp[c>>48]<<12
}

// moveDown takes the board and its transpose c, whose rows are b's columns.
func (t *Tables) moveDown(b, c uint64) uint64 {
	return b ^ t.colDown[c&rowMask] ^
		t.colDown[c>>16&rowMask]<<4 ^
		t.colDown[c>>32&rowMask]<<8 ^
		t.colDown[c>>48]<<12
}

// gainedBy returns the points direction d earns on b.
func (t *Tables) gainedBy(b uint64, d engine.Direction) uint32 {
	if d == engine.Up || d == engine.Down {
		b = transpose(b)
	}
	return t.gained[b&rowMask] + t.gained[b>>16&rowMask] + t.gained[b>>32&rowMask] + t.gained[b>>48]
}

// Move returns b slid in direction d (no tile is spawned); the result equals
// b when d cannot move.
func (t *Tables) Move(b Bitboard, d engine.Direction) Bitboard {
	return Bitboard(t.move(uint64(b), d))
}

// Gained returns the points sliding b in direction d earns.
func (t *Tables) Gained(b Bitboard, d engine.Direction) int {
	return int(t.gainedBy(uint64(b), d))
}

// Move returns the board after sliding in direction d (no tile is spawned)
// and the points gained. The board is unchanged when d cannot move. It is a
// convenience over SharedTables().Move and Gained.
func (b Bitboard) Move(d engine.Direction) (Bitboard, int) {
	t := SharedTables()
	return t.Move(b, d), t.Gained(b, d)
}

// At returns the exponent at (row, col).
func (b Bitboard) At(row, col int) uint8 { return uint8(b >> (16*row + 4*col) & 0xF) }

// Empty returns the number of empty cells.
func (b Bitboard) Empty() int {
	if b == 0 {
		return 16
	}
	return countEmpty(uint64(b))
}

// countEmpty counts zero nibbles. The board must not be all empty (the
// count of 16 wraps to 0); the search never sees an empty board.
func countEmpty(x uint64) int {
	x |= x >> 2 & 0x3333333333333333
	x |= x >> 1
	x = ^x & 0x1111111111111111
	// Each nibble is now 1 where the cell was empty; fold them into the
	// lowest nibble.
	x += x >> 32
	x += x >> 16
	x += x >> 8
	x += x >> 4
	return int(x & 0xF)
}

// distinctTiles counts the distinct non-zero exponents.
func distinctTiles(x uint64) int {
	var seen uint16
	for ; x != 0; x >>= 4 {
		seen |= 1 << (x & 0xF)
	}
	seen &^= 1
	n := 0
	for ; seen != 0; seen &= seen - 1 {
		n++
	}
	return n
}

// FromBoard packs a 4×4 engine board. It reports false for any other size or
// for a tile above 2^15, which a nibble cannot hold.
func FromBoard(b engine.Board) (Bitboard, bool) {
	if b.Size() != 4 {
		return 0, false
	}
	var x Bitboard
	for r := range 4 {
		for c := range 4 {
			e := b.At(r, c)
			if e > MaxBitboardExponent {
				return 0, false
			}
			x |= Bitboard(e) << (16*r + 4*c)
		}
	}
	return x, true
}

// Board unpacks the bitboard into a 4×4 engine board.
func (b Bitboard) Board() engine.Board {
	out, _ := engine.NewBoard(4) // 4 is always a valid size
	for r := range 4 {
		for c := range 4 {
			out.Set(r, c, b.At(r, c))
		}
	}
	return out
}
