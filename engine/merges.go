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
