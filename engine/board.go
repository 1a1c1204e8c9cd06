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
	"math/bits"
	"strconv"
	"strings"
)

// Board sizes the engine supports.
const (
	MinSize = 3
	MaxSize = 8
)

// MaxExponent is the largest exponent a cell may hold; two such tiles do not
// merge. 2^56 keeps a board's sum and a move's points inside an int64 on
// the largest board (64 cells of it sum to 2^62), and no real game comes
// near it (an 8×8 board tops out around 2^66 in theory only).
const MaxExponent = 56

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

// ErrGenerator is returned for a tile generator this package does not
// know (a game recorded by a newer ssh2048, say).
var ErrGenerator = errors.New("unknown tile generator")

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

// Board is an N×N grid of exponents, row 0 at the top. Each row is one
// uint64 holding a byte per cell, column 0 in the low byte, so that a
// whole row is read, compared and written at once. Only the first Size()
// rows and bytes are used; the rest stay zero so that == compares boards
// of the same size by their tiles.
type Board struct {
	size uint8
	rows [MaxSize]uint64
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
func (b *Board) At(row, col int) uint8 { return uint8(b.rows[row] >> (8 * (col & 7))) }

// Set puts the exponent exp at (row, col).
func (b *Board) Set(row, col int, exp uint8) {
	shift := 8 * (col & 7)
	b.rows[row] = b.rows[row]&^(0xff<<shift) | uint64(exp)<<shift
}

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
	n := int(b.size)
	empty := 0
	for row := range n {
		for col := range n {
			if b.At(row, col) == 0 {
				empty++
			}
		}
	}
	return empty
}

// MaxExponent returns the largest exponent on the board.
func (b *Board) MaxExponent() uint8 {
	var m uint8
	for _, r := range b.rows[:b.size] {
		for ; r != 0; r >>= 8 {
			m = max(m, uint8(r))
		}
	}
	return m
}

// Sum returns the sum of all tile values.
func (b *Board) Sum() int {
	s := 0
	n := int(b.size)
	for row := range n {
		for col := range n {
			s += b.Value(row, col)
		}
	}
	return s
}

// Rotate returns the board turned a quarter clockwise.
func (b Board) Rotate() Board {
	n := int(b.size)
	r := Board{size: b.size}
	for row := range n {
		for col := range n {
			r.Set(col, n-1-row, b.At(row, col))
		}
	}
	return r
}

// Move slides and merges every line in direction d, in place. It returns
// the points gained (the sum of the tiles created by merges) and whether
// any cell changed. It spawns nothing; see Game for that.
//
// Every direction is turned into "left": the board is mirrored (right),
// transposed (up) or both (down), every row slides left, and the board is
// turned back. Mirror and transpose are the two reflections a quarter
// rotation is made of; on rows held as words they are a byte swap and a
// dozen shifts and masks, where a rotation would move cell by cell.
func (b *Board) Move(d Direction) (gained int, moved bool) {
	switch d {
	case Left:
		return b.slideRows()
	case Right:
		b.mirror()
		gained, moved = b.slideRows()
		b.mirror()
	case Up:
		b.transpose()
		gained, moved = b.slideRows()
		b.transpose()
	default: // Down
		b.transpose()
		b.mirror()
		gained, moved = b.slideRows()
		b.mirror()
		b.transpose()
	}
	return gained, moved
}

// slideRows slides every row left.
func (b *Board) slideRows() (gained int, moved bool) {
	var changed uint64
	for i := range int(b.size) {
		row := b.rows[i&7] // &7: no bounds check in the hot loop
		slid, g := slideLeft(row)
		gained += g
		changed |= slid ^ row
		b.rows[i&7] = slid
	}
	return gained, changed != 0
}

// mirror reverses every row: column c becomes column n-1-c.
func (b *Board) mirror() {
	unused := 8 * (MaxSize - uint(b.size))
	for i := range int(b.size) {
		b.rows[i&7] = bits.ReverseBytes64(b.rows[i&7]) >> unused
	}
}

// transpose swaps rows and columns: cell (r, c) goes to (c, r). It is the
// classic three-stage transpose of an 8×8 byte matrix (swap the off-
// diagonal bytes of each 2×2 block, then the 2×2 blocks of each 4×4 block,
// then the 4×4 blocks). Boards up to 4×4 live in the top-left 4×4 block and
// need only the first two stages.
func (b *Board) transpose() {
	r := &b.rows
	transpose2x2(r, 0)
	transpose2x2(r, 2)
	transpose4x4(r, 0)
	if b.size <= 4 {
		return
	}
	transpose2x2(r, 4)
	transpose2x2(r, 6)
	transpose4x4(r, 4)
	for i := range 4 {
		t := (r[i]>>32 ^ r[i+4]) & 0x00000000FFFFFFFF
		r[i+4] ^= t
		r[i] ^= t << 32
	}
}

// transpose2x2 swaps the off-diagonal bytes of the 2×2 blocks of rows i
// and i+1.
func transpose2x2(r *[MaxSize]uint64, i int) {
	t := (r[i&7]>>8 ^ r[(i+1)&7]) & 0x00FF00FF00FF00FF
	r[(i+1)&7] ^= t
	r[i&7] ^= t << 8
}

// transpose4x4 swaps the off-diagonal 2×2 blocks of the 4×4 blocks of rows
// i to i+3.
func transpose4x4(r *[MaxSize]uint64, i int) {
	for k := i; k < i+2; k++ {
		t := (r[k&7]>>16 ^ r[(k+2)&7]) & 0x0000FFFF0000FFFF
		r[(k+2)&7] ^= t
		r[k&7] ^= t << 16
	}
}

// slideLeft is the whole rule of 2048 for one row (a byte per cell, first
// cell lowest): tiles slide left as far as they go; two equal neighbours
// merge into one tile of double value; a tile made by a merge does not
// merge again in the same move. It returns the new row and the value of
// the merged tiles.
//
// It packs the tiles first and merges second: the packing compiles to
// branch-free code, which matters because whether a cell is empty is a
// coin toss that the CPU cannot predict.
func slideLeft(row uint64) (out uint64, gained int) {
	var packed uint64
	shift := uint(0)
	for ; row != 0; row >>= 8 {
		c := row & 0xff
		packed |= c << (shift & 63)
		if c != 0 {
			shift += 8
		}
	}
	shift = 0
	for packed != 0 {
		c := packed & 0xff
		if c == (packed>>8)&0xff && c < MaxExponent {
			c++
			gained += 1 << c
			packed >>= 16 // the partner is used up, and the new tile merges no more
		} else {
			packed >>= 8
		}
		out |= c << (shift & 63)
		shift += 8
	}
	return out, gained
}

// CanMove reports whether any direction would change the board.
func (b *Board) CanMove() bool {
	n := int(b.size)
	for row := range n {
		for col := range n {
			c := b.At(row, col)
			if c == 0 {
				return true
			}
			if col+1 < n && b.At(row, col+1) == c {
				return true
			}
			if row+1 < n && b.At(row+1, col) == c {
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
	// The store keeps every move's board as this text: it is written on
	// the stack, then copied once.
	var text [MaxSize * MaxSize * 20]byte
	t := text[:0]
	for row := range n {
		if row > 0 {
			t = append(t, '/')
		}
		for col := range n {
			if col > 0 {
				t = append(t, ' ')
			}
			t = strconv.AppendUint(t, uint64(b.Value(row, col)), 10)
		}
	}
	return string(t)
}

// ErrBoardText is wrapped by every error from ParseBoard.
var ErrBoardText = errors.New("malformed board")

// ParseBoard reads the text form written by String. The number of rows
// gives the size; every row must have that many cells, each 0 or a power
// of two from 2 to 2^MaxExponent. Spaces around cells may vary, and a
// number may have leading zeros.
func ParseBoard(s string) (Board, error) {
	// The store checks every move's board with it: the text String
	// writes is read in one pass, and any other text goes the general
	// way, which also words what is wrong with it.
	if b, ok := parseCanonical(s); ok {
		return b, nil
	}
	return parseGeneral(s)
}

// parseCanonical reads text exactly as String writes it: cells split by
// one space, rows by one '/', numbers without leading zeros. ok is false
// for any other text, right or wrong.
func parseCanonical(s string) (b Board, ok bool) {
	n := strings.Count(s, "/") + 1
	if n < MinSize || n > MaxSize {
		return Board{}, false
	}
	b.size = uint8(n)
	row, col := 0, 0
	for i := 0; ; {
		start := i
		var v uint64
		// Nineteen digits hold every tile (2^MaxExponent has 17) and
		// cannot overflow.
		for i < len(s) && s[i] >= '0' && s[i] <= '9' && i-start < 19 {
			v = v*10 + uint64(s[i]-'0')
			i++
		}
		if i == start || (s[start] == '0' && i-start > 1) || col == n {
			return Board{}, false
		}
		exp, err := tileExponent(v)
		if err != nil {
			return Board{}, false
		}
		b.Set(row, col, exp)
		col++
		if i == len(s) {
			return b, row == n-1 && col == n
		}
		switch {
		case s[i] == ' ':
		case s[i] == '/' && col == n:
			row, col = row+1, 0
		default:
			return Board{}, false
		}
		i++
	}
}

// parseGeneral is ParseBoard for any text.
func parseGeneral(s string) (Board, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Board{}, fmt.Errorf("%w: empty text", ErrBoardText)
	}
	n := strings.Count(s, "/") + 1
	b, err := NewBoard(n)
	if err != nil {
		return Board{}, fmt.Errorf("%w: %d rows: %w", ErrBoardText, n, err)
	}
	r := 0
	for rowText := range strings.SplitSeq(s, "/") {
		cells := 0
		for range strings.FieldsSeq(rowText) {
			cells++
		}
		if cells != n {
			return Board{}, fmt.Errorf("%w: row %d has %d cells, want %d", ErrBoardText, r+1, cells, n)
		}
		c := 0
		for f := range strings.FieldsSeq(rowText) {
			exp, err := parseTile(f)
			if err != nil {
				return Board{}, fmt.Errorf("%w: row %d cell %d: %w", ErrBoardText, r+1, c+1, err)
			}
			b.Set(r, c, exp)
			c++
		}
		r++
	}
	return b, nil
}

func parseTile(f string) (uint8, error) {
	v, err := strconv.ParseUint(f, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", f)
	}
	return tileExponent(v)
}

// tileExponent is the exponent of tile value v (0 for an empty cell).
func tileExponent(v uint64) (uint8, error) {
	if v == 0 {
		return 0, nil
	}
	if v == 1 || v&(v-1) != 0 {
		return 0, fmt.Errorf("%d is not a power of two", v)
	}
	exp := uint8(bits.TrailingZeros64(v))
	if exp > MaxExponent {
		return 0, fmt.Errorf("tile 2^%d is larger than 2^%d", exp, MaxExponent)
	}
	return exp, nil
}
