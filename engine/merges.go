package engine

// Merges tells where a move in direction d from b makes tiles by merging:
// the board it returns holds, in each cell where a merge leaves its tile,
// that tile's exponent, and 0 in every other cell. b is not changed.
//
// It is for showing a move (a screen marks the tiles a move merged), not
// for playing one: Move does not pay for it.
func (b Board) Merges(d Direction) Board {
	m := b
	switch d {
	case Left:
		m.mergeRows()
	case Right:
		m.mirror()
		m.mergeRows()
		m.mirror()
	case Up:
		m.transpose()
		m.mergeRows()
		m.transpose()
	default: // Down
		m.transpose()
		m.mirror()
		m.mergeRows()
		m.mirror()
		m.transpose()
	}
	return m
}

// mergeRows keeps, of every row slid left, only the tiles made by merges.
func (b *Board) mergeRows() {
	for i := range int(b.size) {
		b.rows[i&7] = mergesLeft(b.rows[i&7])
	}
}

// mergesLeft is slideLeft's row with only the merged tiles left in it.
func mergesLeft(row uint64) (out uint64) {
	var packed uint64
	shift := uint(0)
	for ; row != 0; row >>= 8 {
		if c := row & 0xff; c != 0 {
			packed |= c << (shift & 63)
			shift += 8
		}
	}
	shift = 0
	for packed != 0 {
		c := packed & 0xff
		if c == (packed>>8)&0xff && c < MaxExponent {
			out |= (c + 1) << (shift & 63)
			packed >>= 16
		} else {
			packed >>= 8
		}
		shift += 8
	}
	return out
}

// Path is where one tile went in a move: from its cell to the cell it
// ends in. Both tiles of a merge end in the merge's cell, with Merged set.
type Path struct {
	FromRow, FromCol int
	ToRow, ToCol     int
	Exp              uint8 // the tile's exponent before the move
	Merged           bool
}

// Paths appends to dst the path of every tile of b in a move in direction
// d (a tile that stays put has a path to its own cell), line by line in
// the order the move packs them, and returns it. b is not changed.
//
// It is for showing a move (a screen slides each tile along its path),
// not for playing one: Move does not pay for it.
func (b Board) Paths(d Direction, dst []Path) []Path {
	n := int(b.size)
	for line := range n {
		target, last := -1, -1 // last: dst's index of the tile that may still merge
		for i := range n {
			r, c := cellOf(d, n, line, i)
			e := b.At(r, c)
			if e == 0 {
				continue
			}
			if last >= 0 && dst[last].Exp == e && e < MaxExponent {
				dst[last].Merged = true
				tr, tc := cellOf(d, n, line, target)
				dst = append(dst, Path{FromRow: r, FromCol: c, ToRow: tr, ToCol: tc, Exp: e, Merged: true})
				last = -1
				continue
			}
			target++
			tr, tc := cellOf(d, n, line, target)
			dst = append(dst, Path{FromRow: r, FromCol: c, ToRow: tr, ToCol: tc, Exp: e})
			last = len(dst) - 1
		}
	}
	return dst
}

// cellOf is the cell at place i of line in a move in direction d on an
// n×n board, counted from the edge the tiles move toward.
func cellOf(d Direction, n, line, i int) (row, col int) {
	switch d {
	case Left:
		return line, i
	case Right:
		return line, n - 1 - i
	case Up:
		return i, line
	default: // Down
		return n - 1 - i, line
	}
}

// DirectionOf finds the move that led from before to after, adding the
// tile spawn: ok is false when no single move does (the boards are more
// than one move apart). Two directions may give the same board; either
// is returned, and both merge alike.
//
// It is for telling a move whose direction was not kept (a spectator's
// snapshot carries the board and the new tile, not the direction).
func DirectionOf(before, after Board, spawn Spawn) (Direction, bool) {
	for _, d := range Directions() {
		slid := before
		if _, moved := slid.Move(d); !moved || slid.At(spawn.Row, spawn.Col) != 0 {
			continue
		}
		slid.Set(spawn.Row, spawn.Col, spawn.Exp)
		if slid == after {
			return d, true
		}
	}
	return 0, false
}

// SpawnOf finds the tile the move d from before added to make after: the
// cell empty once the tiles slid and filled in after. ok is false when
// the move changes nothing, or no such cell is filled in after.
//
// It is for telling a stored move, whose boards are kept but not its new
// tile.
func SpawnOf(before Board, d Direction, after Board) (Spawn, bool) {
	slid := before
	if _, moved := slid.Move(d); !moved {
		return Spawn{}, false
	}
	n := after.Size()
	for r := range n {
		for c := range n {
			if slid.At(r, c) == 0 && after.At(r, c) != 0 {
				return Spawn{Row: r, Col: c, Exp: after.At(r, c)}, true
			}
		}
	}
	return Spawn{}, false
}
