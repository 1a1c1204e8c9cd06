package render

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// What a frame writes is mostly pen changes (SGR) and cursor moves, not
// text: a game's tiles are blocks of coloured spaces a few digits wide. So
// the renderer first lists the runs of cells to write on every changed line
// (segments), then writes them in an order that needs fewer pen changes:
// next, among the runs that start in the pen already set, the nearest one
// (the rows of one tile, tiles of one colour), else the next in reading
// order. Where the terminal
// erases with the pen's background (bce), a run
// of spaces that ends a segment is erased (ECH) rather than written. The
// cursor moves between runs with the fewest bytes (see move): a tile's
// rows are a line feed or a reverse index apart.

// segment is a run of a changed line's cells to write, [x0, x1), or, with
// erase, the clearing of the line from x0 on.
type segment struct {
	line   int // in scratch.lines
	y      int
	x0, x1 int
	erase  bool
	// What the first cell needs of the pen: to be head, or, for a space
	// (and an erase), to show spaces as head.
	head  *style
	space bool
	// stays: it is spaces alike only, to be erased (ECH): the cursor
	// does not move.
	stays bool
}

// fullStyle pairs a space style with a style of the frame's text that
// shows spaces alike (see spacePen).
type fullStyle struct{ space, full *style }

// noteFull remembers st, the style of a character the frame writes, as a
// pen for spaces of its background.
func (sc *scratch) noteFull(st *style) {
	sp := st.spaceStyle()
	if st == nil || sp == st {
		return // no more than a background, or something across the cell
	}
	for _, f := range sc.full {
		if f.space == sp {
			return
		}
	}
	sc.full = append(sc.full, fullStyle{sp, st})
}

func (sc *scratch) fullFor(sp *style) *style {
	for _, f := range sc.full {
		if f.space == sp {
			return f.full
		}
	}
	return nil
}

// segments adds the runs of line i to write: every cell that differs, and
// the unchanged cells between two of them when writing them takes fewer
// bytes than moving past them; and the erasing of what the old line had
// past the new one's end.
func (r *Renderer) segments(sc *scratch, i int) {
	l := &sc.lines[i]
	old, cur := sc.oldCells(l), sc.curCells(l) // as long as each other
	stop := min(l.end, l.lo+len(cur))
	for x := l.lo; x < stop; {
		if old[x-l.lo] == cur[x-l.lo] {
			x++
			continue
		}
		// Start at a whole wide grapheme, new or old: writing over half
		// of one blanks all of it.
		for x > l.lo && (cur[x-l.lo].text == "" || old[x-l.lo].text == "") {
			x--
		}
		x0 := x
		var pen *style
		for x < stop {
			c := cur[x-l.lo]
			if old[x-l.lo] == c && c.text != "" {
				// Unchanged cells up to the next change: written over if
				// that takes fewer bytes than moving past them.
				next := x
				for next < stop && old[next-l.lo] == cur[next-l.lo] {
					next++
				}
				if next == stop || sc.cost(pen, cur[x-l.lo:next-l.lo]) > cursorForwardLen(next-x) {
					break
				}
			}
			if c.text != "" && (c.text != " " || c.style != pen.spaceStyle()) {
				pen = c.style
			}
			x++
		}
		c := cur[x0-l.lo]
		seg := segment{line: i, y: l.y, x0: x0, x1: x, head: c.style, space: c.text == " "}
		if r.ech && seg.space && x-x0 > eraseLen(x-x0) {
			seg.stays = true
			for _, d := range cur[x0-l.lo : x-l.lo] {
				if d != c {
					seg.stays = false
					break
				}
			}
		}
		sc.segs = append(sc.segs, seg)
	}
}

// eraseRest adds the erasing of what the old line had past the new one's
// end, if anything; sc.lines[first:] are the line's changed stretches.
func (r *Renderer) eraseRest(sc *scratch, first int) {
	for i := first; i < len(sc.lines); i++ {
		l := &sc.lines[i]
		old, cur := sc.oldCells(l), sc.curCells(l)
		for x := max(l.end, l.lo); x < l.lo+len(cur); x++ {
			if old[x-l.lo] != cur[x-l.lo] {
				sc.segs = append(sc.segs, segment{line: i, y: l.y, x0: x, erase: true, space: true})
				return
			}
		}
	}
}

// lookahead bounds how many segments are considered for the next one to
// write, so that a frame of thousands of them costs no more than linear
// time.
const lookahead = 64

// emit writes the frame's segments.
func (r *Renderer) emit(out *bytes.Buffer, sc *scratch) {
	segs := sc.segs
	// The segments not written yet, in order: the choice of the next is
	// made among them alone, the written ones not passed over again. With
	// each, what its first cell needs of the pen, as a number (see
	// needOf), so that looking for those that start in the pen reads no
	// segment that does not.
	left, needs := sc.left[:0], sc.needs[:0]
	for i := range segs {
		left = append(left, int32(i))
		needs = append(needs, needOf(segs[i].head, segs[i].space))
	}
	for len(left) > 0 {
		first := int(left[0])
		// Of the segments that start in the pen, the nearest; one that
		// leaves the cursor where it is (erased spaces) goes first if it
		// is at most a byte further, so that the next move is from it:
		// a tile's top row, then its bottom row, then the middle.
		// (Costs in half bytes; best is a place in left.)
		best, bestCost, found := 0, 0, false
		// A space needs the pen to show spaces as head; anything else,
		// to be head.
		inPen, spaceInPen := needOf(r.pen, false), needOf(r.pen.spaceStyle(), true)
		for k, n := range needs[:within(left, first+lookahead)] {
			if n != inPen && n != spaceInPen {
				continue
			}
			s := &segs[left[k]]
			c := 2 * r.moveCost(s.x0, s.y)
			if s.stays {
				c -= 3
			}
			if !found || c < bestCost {
				best, bestCost, found = k, c, true
			}
		}
		// If none does, best is still 0: the next in reading order.
		// Weighing the pen changes of the next few instead saved about
		// one byte in a hundred, not worth the code it took.
		r.write(out, sc, &segs[left[best]])
		left = append(left[:best], left[best+1:]...)
		needs = append(needs[:best], needs[best+1:]...)
	}
	sc.left, sc.needs = left, needs
}

// within is how many of left, in increasing order, are below limit.
func within(left []int32, limit int) int {
	if n := len(left); n == 0 || int(left[n-1]) < limit {
		return n // all: most frames have fewer segments than lookahead
	}
	k, _ := slices.BinarySearch(left, int32(limit))
	return k
}

// needOf is what a segment whose first cell has style head needs of the
// pen, as a number: head's id, and whether the cell is a space. Two
// segments need the same pen if their numbers are equal.
func needOf(head *style, space bool) uint64 {
	n := uint64(head.idOf()) << 1
	if space {
		n |= 1
	}
	return n
}

// write writes one segment.
func (r *Renderer) write(out *bytes.Buffer, sc *scratch, s *segment) {
	l := &sc.lines[s.line]
	r.moveTo(out, s.x0, s.y)
	if s.erase {
		if r.pen.spaceStyle() != nil {
			r.setPen(out, sc, nil)
		}
		out.WriteString("\x1b[K")
		return
	}
	cur := sc.curCells(l)[s.x0-l.lo : s.x1-l.lo]
	for k := 0; k < len(cur); {
		c := cur[k]
		switch c.text {
		case "": // a wide grapheme's second cell
			k++
			r.x++
			continue
		case " ":
			n := 1
			for k+n < len(cur) && cur[k+n] == c {
				n++
			}
			if r.pen.spaceStyle() != c.style {
				r.setPen(out, sc, r.spacePen(sc, c.style, cur[k+n:]))
			}
			if r.ech && erases(r.pen) {
				more := k+n < len(cur)
				n0 := eraseLen(n)
				if more {
					n0 += cursorForwardLen(n)
				}
				if n0 < n {
					out.WriteString("\x1b[")
					if n > 1 {
						out.WriteString(strconv.Itoa(n))
					}
					out.WriteByte('X')
					if more {
						writeCursorForward(out, n)
						r.x += n
					}
					k += n
					continue
				}
			}
			for range n {
				out.WriteByte(' ')
			}
			r.x += n
			k += n
			continue
		}
		if c.style != r.pen {
			r.setPen(out, sc, c.style)
		}
		out.WriteString(c.text)
		r.x++
		k++
	}
	if r.x >= r.width {
		r.x = -1
	}
}

// erases tells whether erasing with pen leaves cells that look like
// spaces written with it: nothing it draws goes across the cell.
func erases(pen *style) bool { return pen == nil || pen.look.attrs&acrossCell == 0 }

// eraseLen is len of ECH n.
func eraseLen(n int) int {
	if n <= 1 {
		return len("\x1b[X")
	}
	return len("\x1b[X") + len(strconv.Itoa(n))
}

// spacePen is the pen to write spaces of space style sp with, when the
// pen does not draw them so: of the styles that do, the one that serves
// the text after them in the segment, or the frame's text of that
// background (a later tile row), if changing to it costs no more; else
// the pen with only its background changed, if that is shorter; else sp.
func (r *Renderer) spacePen(sc *scratch, sp *style, rest []cell) *style {
	for _, c := range rest {
		if c.text == " " || c.text == "" {
			continue
		}
		if c.style.spaceStyle() == sp {
			return c.style
		}
		break
	}
	// The cheapest pen for the spaces alone: sp, or the pen with only its
	// background changed and what it draws across cells (an underline, a
	// reverse: a mark on a tile) taken off.
	best := sp
	bestLen := len(sc.transition(r.pen, sp))
	if q := sc.bgSwapped(r.pen, sp); q != nil && len(sc.transition(r.pen, q)) < bestLen {
		best, bestLen = q, len(sc.transition(r.pen, q))
	}
	// Text of this background elsewhere in the frame (the digits of a
	// tile's middle row, drawn next): its pen now, if that costs no more
	// than this one and a change to it later.
	if f := sc.fullFor(sp); f != nil && len(sc.transition(r.pen, f)) <= bestLen+len(sc.transition(best, f)) {
		return f
	}
	return best
}

// bgSwapped is pen p with its background changed to space style sp's
// and what it draws across cells taken off, if that draws spaces as sp
// does; else nil.
func (sc *scratch) bgSwapped(p, sp *style) *style {
	if p == nil || sp != nil && sp.look != (sgrState{bg: sp.look.bg}) {
		return nil
	}
	m := &sc.swaps[(p.id*0x9e3779b1^sp.idOf())%uint32(len(sc.swaps))]
	if m.set && m.p == p && m.sp == sp {
		return m.q
	}
	look := p.look
	look.attrs &^= acrossCell
	look.underline = 0
	look.bg = noColour
	if sp != nil {
		look.bg = sp.look.bg
	}
	q := intern(look)
	if q.spaceStyle() != sp {
		q = nil
	}
	*m = swapMemo{set: true, p: p, sp: sp, q: q}
	return q
}

// cost is how many bytes writing cs takes with the pen at pen.
func (sc *scratch) cost(pen *style, cs []cell) int {
	n := 0
	for _, c := range cs {
		if c.text == "" {
			continue
		}
		if c.text != " " || c.style != pen.spaceStyle() {
			n += len(sc.transition(pen, c.style))
			pen = c.style
		}
		n += len(c.text)
	}
	return n
}

// setPen switches the terminal's pen to a style.
func (r *Renderer) setPen(out *bytes.Buffer, sc *scratch, st *style) {
	out.WriteString(sc.transition(r.pen, st))
	r.pen = st
}

// cursorForwardLen is len(ansi.CursorForward(n)), without making it.
func cursorForwardLen(n int) int {
	if n <= 1 {
		return len("\x1b[C")
	}
	return len("\x1b[C") + len(strconv.Itoa(n))
}

func writeCursorForward(out *bytes.Buffer, n int) {
	var b [16]byte
	out.Write(appendMove(b[:0], n, 'C'))
}

// moveTo moves the cursor to column x of row y with the fewest bytes.
func (r *Renderer) moveTo(out *bytes.Buffer, x, y int) {
	var b [32]byte
	out.Write(r.move(b[:0], x, y))
	r.x, r.y = x, y
}

// The cursor's moves, shortest first where a choice is the same length:
// relative moves by control characters (line feed down where it keeps
// the column, reverse index up, backspace left), then by CSI sequences;
// or from the line's start (carriage return); or to an absolute position.
// None of them scrolls: a line feed is only written to go down, never
// from the last row, and a reverse index only to go up, never from the
// first.

// moveCost is how many bytes moveTo(x, y) writes (see move). It is what
// the renderer orders its writes by, so it is counted, not written.
func (r *Renderer) moveCost(x, y int) int {
	if r.x == x && r.y == y {
		return 0
	}
	if r.x < 0 {
		return cupLen(x, y)
	}
	dy := y - r.y
	v := r.verticalLen(dy)
	fromStart := 1 + v // CR, then up or down
	if dy == 1 {
		fromStart = 2 // CR LF
	}
	best := min(v+horizontalLen(x-r.x), fromStart+horizontalLen(x))
	if best <= minCUPLen {
		return best // no absolute position is shorter: most moves
	}
	return min(best, cupLen(x, y))
}

// minCUPLen is the length of the shortest absolute position, "\x1b[1H".
const minCUPLen = len("\x1b[1H")

// cupLen is the length of the absolute position of column x of row y
// (CUP; a column of 1 left out).
func cupLen(x, y int) int {
	n := len("\x1b[H") + digits(y+1)
	if x > 0 {
		n += 1 + digits(x+1)
	}
	return n
}

// move appends to b the shortest way to column x of row y: an absolute
// position, or, when the cursor's place is known, up or down and across,
// or up or down and from the line's start. The lengths are counted first
// (as moveCost counts them) and only the shortest is written; where two
// are as short, the first in that order.
func (r *Renderer) move(b []byte, x, y int) []byte {
	if r.x == x && r.y == y {
		return b
	}
	if r.x >= 0 {
		absLen := cupLen(x, y)
		dy := y - r.y
		v := r.verticalLen(dy)
		relLen := v + horizontalLen(x-r.x)
		fromStart := 1 + v // CR, then up or down
		if dy == 1 {
			fromStart = 2 // CR LF
		}
		fromStart += horizontalLen(x)
		switch best := min(absLen, relLen); {
		case fromStart < best:
			if dy == 1 {
				// Whether or not a line feed also returns the carriage
				// on its way to the terminal (see New).
				b = append(b, '\r', '\n')
			} else {
				b = r.appendVertical(append(b, '\r'), dy)
			}
			return appendHorizontal(b, x)
		case relLen < absLen:
			return appendHorizontal(r.appendVertical(b, dy), x-r.x)
		}
	}
	// CUP; a column of 1 may be left out.
	b = appendNumber(append(b, "\x1b["...), y+1)
	if x > 0 {
		b = appendNumber(append(b, ';'), x+1)
	}
	return append(b, 'H')
}

// appendNumber appends n, which is not negative, in decimal.
func appendNumber(b []byte, n int) []byte {
	if n < 10 {
		return append(b, byte('0'+n))
	}
	if n < 100 {
		return append(b, byte('0'+n/10), byte('0'+n%10))
	}
	return strconv.AppendInt(b, int64(n), 10)
}

// maxFeeds is the most rows the cursor goes down by line feeds: from 4
// on, CUD is as short.
const maxFeeds = 3

// verticalLen is len(appendVertical(nil, dy)).
func (r *Renderer) verticalLen(dy int) int {
	switch {
	case dy > 0 && r.lf && dy <= maxFeeds:
		return dy
	case dy == -1:
		return len(ansi.ReverseIndex)
	}
	return moveLen(abs(dy))
}

// appendVertical appends the shortest move down or up by dy rows, nothing
// for 0: line feeds (only where a line feed keeps the column), reverse
// index for one row up, else CUD or CUU. The cursor is never on the last
// row when it goes down, nor on the first when it goes up, so that
// neither scrolls.
func (r *Renderer) appendVertical(b []byte, dy int) []byte {
	switch {
	case dy > 0 && r.lf && dy <= maxFeeds:
		for range dy {
			b = append(b, '\n')
		}
		return b
	case dy > 0:
		return appendMove(b, dy, 'B')
	case dy == -1:
		return append(b, ansi.ReverseIndex...)
	case dy < 0:
		return appendMove(b, -dy, 'A')
	}
	return b
}

// maxBackspaces is the most columns the cursor goes left by backspaces:
// from 4 on, CUB is as short.
const maxBackspaces = 3

// horizontalLen is len(appendHorizontal(nil, dx)).
func horizontalLen(dx int) int {
	if dx < 0 && -dx <= maxBackspaces {
		return -dx
	}
	return moveLen(abs(dx))
}

// appendHorizontal appends the shortest move right or left by dx
// columns, nothing for 0: backspaces, or CUF or CUB. (The cursor is
// never where it waits to wrap when it moves relatively: its column is
// not known then.)
func appendHorizontal(b []byte, dx int) []byte {
	switch {
	case dx < 0 && -dx <= maxBackspaces:
		for range -dx {
			b = append(b, '\b')
		}
		return b
	case dx > 0:
		return appendMove(b, dx, 'C')
	case dx < 0:
		return appendMove(b, -dx, 'D')
	}
	return b
}

// moveLen is the length of CUU, CUD, CUF or CUB by n, 0 for none.
func moveLen(n int) int {
	switch {
	case n == 0:
		return 0
	case n == 1:
		return len("\x1b[C")
	}
	return len("\x1b[C") + digits(n)
}

// digits is how many decimal digits n, not negative, takes.
func digits(n int) int {
	switch {
	case n < 10:
		return 1
	case n < 100:
		return 2
	case n < 1000:
		return 3
	}
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

func abs(n int) int { return max(n, -n) }

// appendMove appends CUU, CUD, CUF or CUB (final) by n.
func appendMove(b []byte, n int, final byte) []byte {
	b = append(b, "\x1b["...)
	if n > 1 {
		b = appendNumber(b, n)
	}
	return append(b, final)
}

// erasesWithBackground tells whether a terminal with this TERM erases
// characters (ECH) with the pen's background colour: its terminfo entry
// has bce and ech. The list is the entries of ncurses' terminfo that do;
// a terminal that claims to be one of them promises it. Others (tmux,
// screen, and terminals whose entries leave bce out) erase to the
// default background, which would show as holes in coloured tiles.
func erasesWithBackground(term string) bool {
	switch term {
	case "xterm", "xterm-256color", "xterm-16color", "xterm-88color", "xterm-new", "xterm-xfree86",
		"linux", "rxvt-unicode", "rxvt-unicode-256color":
		return true
	}
	return false
}
