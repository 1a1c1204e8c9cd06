// Package engine implements the rules of 2048 on an N×N board, exactly as
// the original web game (gabrielecirulli/2048) plays them, with injected,
// seedable randomness so that any game can be replayed from its size, seed
// and directions.
//
// The package is pure: no I/O, no globals, no dependencies beyond the
// standard library. Cells hold exponents (0 = empty, k = tile 2^k), so a
// Board is a small comparable value that is cheap to copy, compare and hash.
package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Board sizes the engine supports.
const (
	MinSize = 3
	MaxSize = 8
)

// MaxExponent is the largest exponent a cell may hold; two such tiles do not
// merge. 2^62 keeps every score and tile value inside an int64, and no real
// game comes near it (an 8×8 board tops out around 2^66 in theory only).
const MaxExponent = 62

// ErrSize is returned for a board size outside MinSize..MaxSize.
var ErrSize = errors.New("board size out of range")

// Direction is one of the four moves.
type Direction uint8

// The four directions. Their byte values are stored in the database (one
// byte per move), so they must never be renumbered.
const (
	Up Direction = iota
	Right
	Down
	Left
)

// Directions returns the four directions in a fixed order.
func Directions() [4]Direction { return [4]Direction{Up, Right, Down, Left} }

// String returns the lower-case name used by the bot protocol.
func (d Direction) String() string {
	switch d {
	case Up:
		return "up"
	case Right:
		return "right"
	case Down:
		return "down"
	case Left:
		return "left"
	}
	return "Direction(" + strconv.Itoa(int(d)) + ")"
}

// Valid reports whether d is one of the four directions.
func (d Direction) Valid() bool { return d <= Left }

// ErrDirection is returned by ParseDirection for anything but a direction.
var ErrDirection = errors.New("not a direction (want up, down, left, right or u, d, l, r)")

// ParseDirection accepts "up", "down", "left", "right" and their first
// letters, in any case.
func ParseDirection(s string) (Direction, error) {
	switch strings.ToLower(s) {
	case "up", "u":
		return Up, nil
	case "right", "r":
		return Right, nil
	case "down", "d":
		return Down, nil
	case "left", "l":
		return Left, nil
	}
	return 0, fmt.Errorf("%q: %w", s, ErrDirection)
}

// Board is an N×N grid of exponents, row-major, row 0 at the top. Only the
// first Size()² cells are used; the rest stay zero so that == compares
// boards of the same size by their tiles.
type Board struct {
	size  uint8
	cells [MaxSize * MaxSize]uint8
}

// NewBoard returns an empty board of the given size.
func NewBoard(size int) (Board, error) {
	if size < MinSize || size > MaxSize {
		return Board{}, fmt.Errorf("new board %d×%d: %w (%d to %d)", size, size, ErrSize, MinSize, MaxSize)
	}
	return Board{size: uint8(size)}, nil
}

// Size returns N for an N×N board.
func (b *Board) Size() int { return int(b.size) }

// At returns the exponent at (row, col): 0 for empty, k for the tile 2^k.
func (b *Board) At(row, col int) uint8 { return b.cells[row*int(b.size)+col] }

// Set puts the exponent exp at (row, col).
func (b *Board) Set(row, col int, exp uint8) { b.cells[row*int(b.size)+col] = exp }

// Value returns the tile value at (row, col), 0 for an empty cell.
func (b *Board) Value(row, col int) int { return Value(b.At(row, col)) }

// Value converts an exponent to a tile value (0 stays 0).
func Value(exp uint8) int {
	if exp == 0 {
		return 0
	}
	return 1 << exp
}

// Empty returns the number of empty cells.
func (b *Board) Empty() int {
	n := 0
	for _, c := range b.cells[:int(b.size)*int(b.size)] {
		if c == 0 {
			n++
		}
	}
	return n
}

// MaxExponent returns the largest exponent on the board.
func (b *Board) MaxExponent() uint8 {
	var m uint8
	for _, c := range b.cells[:int(b.size)*int(b.size)] {
		m = max(m, c)
	}
	return m
}

// Sum returns the sum of all tile values.
func (b *Board) Sum() int {
	s := 0
	for _, c := range b.cells[:int(b.size)*int(b.size)] {
		s += Value(c)
	}
	return s
}

// Rotate returns the board turned a quarter clockwise.
func (b Board) Rotate() Board {
	n := int(b.size)
	r := Board{size: b.size}
	for row := range n {
		for col := range n {
			r.cells[col*n+(n-1-row)] = b.cells[row*n+col]
		}
	}
	return r
}

// line describes where a direction's i-th line starts and how to step along
// it, so that walking the line is walking row i of the board rotated until
// the move is "left". Reading a line through (start, step) is the rotation;
// writing it back the same way is the rotation back, without copying the
// whole board twice.
func line(d Direction, n, i int) (start, step int) {
	switch d {
	case Left:
		return i * n, 1
	case Right:
		return i*n + n - 1, -1
	case Up:
		return i, n
	default: // Down
		return (n-1)*n + i, -n
	}
}

// Move slides and merges every line in direction d, in place. It returns
// the points gained (the sum of the tiles created by merges) and whether
// any cell changed. It spawns nothing; see Game for that.
func (b *Board) Move(d Direction) (gained int, moved bool) {
	n := int(b.size)
	for i := range n {
		start, step := line(d, n, i)
		// Indexes are masked with &63 (and &7 below): they are always in
		// range, and the mask lets the compiler drop the bounds checks in
		// the hottest loop of the game and of the AI.
		var row [MaxSize]uint8
		for k, idx := 0, start; k < n; k, idx = k+1, idx+step {
			row[k&7] = b.cells[idx&63]
		}
		before := row
		gained += slideLeft(&row, n)
		if row == before {
			continue
		}
		moved = true
		for k, idx := 0, start; k < n; k, idx = k+1, idx+step {
			b.cells[idx&63] = row[k&7]
		}
	}
	return gained, moved
}

// slideLeft is the whole rule of 2048 for one row of n cells: tiles slide
// left as far as they go; two equal neighbours merge into one tile of
// double value; a tile made by a merge does not merge again in the same
// move. It works in place and returns the value of the merged tiles.
//
// It packs the tiles first and merges second: the packing compiles to
// branch-free code, which matters because on real boards whether a cell is
// empty is a coin toss that the CPU cannot predict.
func slideLeft(row *[MaxSize]uint8, n int) (gained int) {
	var tiles [MaxSize]uint8
	count := 0
	for i := range n {
		c := row[i&7]
		tiles[count&7] = c
		if c != 0 {
			count++
		}
	}
	*row = [MaxSize]uint8{}
	next := 0
	for i := 0; i < count; i++ {
		c := tiles[i&7]
		if i+1 < count && tiles[(i+1)&7] == c && c < MaxExponent {
			c++
			gained += 1 << c
			i++ // the partner is used up, and the new tile merges no more
		}
		row[next&7] = c
		next++
	}
	return gained
}

// CanMove reports whether any direction would change the board.
func (b *Board) CanMove() bool {
	n := int(b.size)
	for row := range n {
		for col := range n {
			c := b.cells[row*n+col]
			if c == 0 {
				return true
			}
			if col+1 < n && b.cells[row*n+col+1] == c {
				return true
			}
			if row+1 < n && b.cells[(row+1)*n+col] == c {
				return true
			}
		}
	}
	return false
}

// String returns the compact text form: tile values separated by spaces,
// rows by slashes, e.g. "2 2 0 4/0 0 0 0/0 0 0 0/0 0 0 8".
func (b Board) String() string {
	n := int(b.size)
	var sb strings.Builder
	for row := range n {
		if row > 0 {
			sb.WriteByte('/')
		}
		for col := range n {
			if col > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(strconv.Itoa(b.Value(row, col)))
		}
	}
	return sb.String()
}

// ErrBoardText is wrapped by every error from ParseBoard.
var ErrBoardText = errors.New("malformed board")

// ParseBoard reads the text form written by String. The number of rows
// gives the size; every row must have that many cells, each 0 or a power
// of two from 2 to 2^MaxExponent.
func ParseBoard(s string) (Board, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Board{}, fmt.Errorf("%w: empty text", ErrBoardText)
	}
	rows := strings.Split(s, "/")
	b, err := NewBoard(len(rows))
	if err != nil {
		return Board{}, fmt.Errorf("%w: %d rows: %w", ErrBoardText, len(rows), err)
	}
	for r, rowText := range rows {
		fields := strings.Fields(rowText)
		if len(fields) != len(rows) {
			return Board{}, fmt.Errorf("%w: row %d has %d cells, want %d", ErrBoardText, r+1, len(fields), len(rows))
		}
		for c, f := range fields {
			exp, err := parseTile(f)
			if err != nil {
				return Board{}, fmt.Errorf("%w: row %d cell %d: %w", ErrBoardText, r+1, c+1, err)
			}
			b.Set(r, c, exp)
		}
	}
	return b, nil
}

func parseTile(f string) (uint8, error) {
	v, err := strconv.ParseUint(f, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", f)
	}
	if v == 0 {
		return 0, nil
	}
	if v == 1 || v&(v-1) != 0 {
		return 0, fmt.Errorf("%d is not a power of two", v)
	}
	exp := uint8(0)
	for v > 1 {
		v >>= 1
		exp++
	}
	if exp > MaxExponent {
		return 0, fmt.Errorf("tile 2^%d is larger than 2^%d", exp, MaxExponent)
	}
	return exp, nil
}
