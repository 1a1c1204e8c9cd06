package render

import (
	"math/bits"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// Most lines a game draws are simple: printable ASCII, a few characters
// such as × or ─ that take one cell and join nothing, and SGR sequences.
// Such a line is read as spans (runs of one style) rather than cut into
// cells one grapheme at a time, and two spans of one style compare as
// strings: the columns where two lines differ are found without making a
// cell, and only those are made into cells. Any other line (wide or
// combining characters, control characters, other sequences) is cut into
// cells, as before.

// span is a run of cells of one style: printable ASCII, a cell a byte,
// or one character that takes one cell (see singleCell).
type span struct {
	text string
	st   *style
	col  int // its first column
	w    int // its cells: len(text), or 1 for one non-ASCII character
}

func (s *span) ascii() bool { return s.w == len(s.text) }

// sgrEnd is the index past the SGR sequence at s[i] (an ESC): CSI,
// parameters and separators only, m (see isStyleSequence); -1 if there is
// none there, or another sequence, which makes the line not simple.
func sgrEnd(s string, i int) int {
	j := i + 1
	if j >= len(s) || s[j] != '[' {
		return -1
	}
	for j++; j < len(s); j++ {
		// Digits, ':' and ';' are the one range 0x30–0x3b.
		if c := s[j]; c-'0' > ';'-'0' {
			if c == 'm' {
				return j + 1
			}
			return -1
		}
	}
	return -1
}

// isText tells whether c is printable ASCII.
func isText(c byte) bool { return c >= 0x20 && c < 0x7f }

// textEnd is the end of the run of printable ASCII in s from i, at most
// limit.
func textEnd(s string, i, limit int) int {
	for i < limit && isText(s[i]) {
		i++
	}
	return i
}

// commonPrefix is how many bytes a and b start with alike: compared
// eight at a time, the first that differs found from the bits that do.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := word(a, i) ^ word(b, i); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// word is the eight bytes of s from i, the first the lowest (the compiler
// makes it one load).
func word(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// joinsNext tells whether what s has at i may join the character before
// it, so that reading must not stop before it: a character that is not
// singleCell.
func joinsNext(s string, i int) bool {
	if i >= len(s) || s[i] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return !singleCell(r)
}

// lineState is where reading a line has got to: the style the view set
// and the column.
type lineState struct {
	view sgrState
	st   *style
	col  int
}

// spanAt reads one piece of line s, at byte *i, from state *ls (which it
// moves past the piece), appending its span if it has one to *dst: a run
// of printable ASCII, an SGR sequence or a character that takes one cell.
// The walk reads two lines a piece at a time, so the state is changed in
// place rather than passed in and out. *i must be within s, and ls.col
// within the width. It returns false if s is not simple there, or if
// what follows the piece may join its last character.
func (sc *scratch) spanAt(p colorprofile.Profile, width int, dst *[]span, s string, i *int, ls *lineState) bool {
	j := *i
	switch c := s[j]; {
	case isText(c):
		e := textEnd(s, j+1, len(s))
		k := min(e-j, width-ls.col)
		*dst = append(*dst, span{text: s[j : j+k], st: ls.st, col: ls.col, w: k})
		ls.col += k
		j = e
	case c == ansi.ESC:
		e := sgrEnd(s, j)
		if e < 0 {
			return false
		}
		sc.sgr(p, ls, s[j+2:e-1])
		j = e
	case c >= utf8.RuneSelf:
		r, n := utf8.DecodeRuneInString(s[j:])
		if !singleCell(r) {
			return false
		}
		*dst = append(*dst, span{text: s[j : j+n], st: ls.st, col: ls.col, w: 1})
		ls.col++
		j += n
	default:
		return false // a control character
	}
	*i = j
	return !joinsNext(s, j)
}

// spans appends the spans of line s up to the screen's width to dst; ok
// is false if s is not simple.
func (sc *scratch) spans(p colorprofile.Profile, width int, dst []span, s string) (_ []span, ok bool) {
	var ls lineState
	for i := 0; i < len(s) && ls.col < width; {
		if !sc.spanAt(p, width, &dst, s, &i, &ls) {
			return dst, false
		}
	}
	return dst, true
}

// sgr is applySGR on ls, with the reset that ends most styled text
// short-cut.
func (sc *scratch) sgr(p colorprofile.Profile, ls *lineState, params string) {
	if params == "" || params == "0" {
		ls.view, ls.st = sgrState{}, nil
		return
	}
	ls.st = sc.applySGR(p, &ls.view, params)
}

// sharedPrefix is the part two lines share, in whole simple pieces: its
// length n in bytes, its width in columns (at most width), and reset, the
// start of its last SGR sequence that resets the style, -1 if none (the
// view's style at n follows from the sequences from there on, or from the
// start). ok is false if the shared part is not
// simple. (A character that may join the one before the first difference
// makes its line not simple where it is read next, in spanAt.)
func sharedPrefix(a, b string, width int) (n, col, reset int, ok bool) {
	reset = -1
	m := commonPrefix(a, b)
	// edge is the shared part when it fills the width at byte i: unless
	// what follows in either line may join the last character.
	edge := func(i int) (int, int, int, bool) {
		if joinsNext(a, i) || joinsNext(b, i) {
			return 0, 0, 0, false
		}
		return i, width, reset, true
	}
	for n < m {
		switch c := a[n]; {
		case isText(c):
			j := textEnd(a, n+1, m)
			if col+j-n >= width {
				return edge(n + width - col)
			}
			col += j - n
			n = j
		case c == ansi.ESC:
			j := sgrEnd(a, n)
			if j < 0 {
				return 0, 0, 0, false
			}
			if j > m {
				return n, col, reset, true // the sequences differ
			}
			if isReset(a[n+2 : j-1]) {
				reset = n
			}
			n = j
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(a[n:])
			if !singleCell(r) {
				return 0, 0, 0, false
			}
			if n+size > m {
				return n, col, reset, true
			}
			if col++; col >= width {
				return edge(n + size)
			}
			n += size
		default:
			return 0, 0, 0, false
		}
	}
	return n, col, reset, true
}

// isReset tells whether SGR parameters start with a reset: "", "0" or
// "0;…".
func isReset(params string) bool {
	return len(params) == 0 || params[0] == '0' && (len(params) == 1 || params[1] == ';')
}

// stateOf moves ls's style past the SGR sequences of s, a simple stretch
// of a line.
func (sc *scratch) stateOf(p colorprofile.Profile, ls *lineState, s string) {
	for i := 0; i < len(s); {
		if s[i] != ansi.ESC {
			i++
			continue
		}
		j := sgrEnd(s, i)
		sc.sgr(p, ls, s[i+2:j-1])
		i = j
	}
}

// shows tells whether line s from byte i, read from state ls, has a cell
// before the screen's edge that is not blank.
func (sc *scratch) shows(p colorprofile.Profile, width int, s string, i int, ls lineState) bool {
	for i < len(s) && ls.col < width {
		switch c := s[i]; {
		case c == ' ':
			if ls.st.spaceStyle() != nil {
				return true
			}
			ls.col++
			i++
		case c == ansi.ESC:
			j := sgrEnd(s, i)
			if j < 0 {
				return true // something that may show
			}
			sc.sgr(p, &ls, s[i+2:j-1])
			i = j
		default:
			return true // a character, or something that may be one
		}
	}
	return false
}

// minInStep is how many columns two lines must be alike for the walk to
// stop reading them: writing over fewer than that between two changes can
// take fewer bytes than moving past them.
const minInStep = 8

// region is a stretch where two lines were read in full, from the same
// column: sc.spanA[a0:a1] and sc.spanB[b0:b1]. Between regions, the lines
// are the same bytes read from the same column and style: the same cells,
// not read.
type region struct{ a0, a1, b0, b1 int }

// walk reads two simple lines for where they differ. While they are in
// step (the same bytes next, from the same column and style) it skips what
// they share, reading only its columns and SGR sequences; where they are
// not, it reads both as spans, a piece at a time (the one behind in
// columns first), until they are in step again. The regions read are
// sc.regions; end is one past the new line's last cell that is not blank,
// or the width when that is past every region. No regions: the lines look
// the same. ok is false if either line is not simple.
func (sc *scratch) walk(p colorprofile.Profile, width int, was, is string) (end int, ok bool) {
	a, b := sc.spanA[:0], sc.spanB[:0]
	sc.regions = sc.regions[:0]
	var (
		ls     lineState
		ia, ib int
		tail   = -1 // where the new line's part after the last region starts
		atTail lineState
	)
	n, col, reset, ok := sharedPrefix(was, is, width)
	for {
		if !ok {
			return 0, false
		}
		tail, atTail = ib, ls
		if reset >= 0 {
			ls.view, ls.st = sgrState{}, nil
			sc.stateOf(p, &ls, was[ia+reset:ia+n])
		} else {
			sc.stateOf(p, &ls, was[ia:ia+n])
		}
		ls.col += col
		ia, ib = ia+n, ib+n
		if ls.col >= width || ia >= len(was) && ib >= len(is) {
			break
		}
		r := region{a0: len(a), b0: len(b)}
		lsa, lsb := ls, ls
		for {
			doneA, doneB := ia >= len(was) || lsa.col >= width, ib >= len(is) || lsb.col >= width
			if doneA && doneB {
				break
			}
			ca, cb := lsa.col, lsb.col
			if !doneA && (doneB || ca <= cb) {
				if !sc.spanAt(p, width, &a, was, &ia, &lsa) {
					return 0, false
				}
			}
			if !doneB && (doneA || cb <= ca) {
				if !sc.spanAt(p, width, &b, is, &ib, &lsb) {
					return 0, false
				}
			}
			if lsa.col != lsb.col || lsa.view != lsb.view || ia >= len(was) || ib >= len(is) || was[ia] != is[ib] {
				continue
			}
			// In step again. A short stretch alike between two
			// differences stays in the region: it may be cheaper to
			// write over it than to move past it (see segments).
			n, col, reset, ok = sharedPrefix(was[ia:], is[ib:], width-lsa.col)
			if !ok || col >= minInStep || lsa.col+col >= width || ia+n >= len(was) && ib+n >= len(is) {
				break
			}
		}
		r.a1, r.b1 = len(a), len(b)
		sc.regions = append(sc.regions, r)
		tail = -1
		if (ia >= len(was) || lsa.col >= width) && (ib >= len(is) || lsb.col >= width) {
			break
		}
		ls = lsa
	}
	sc.spanA, sc.spanB = a, b
	if len(sc.regions) == 0 {
		return 0, true
	}
	last := sc.regions[len(sc.regions)-1]
	switch {
	case tail >= 0 && (atTail.col >= width || sc.shows(p, width, is, tail, atTail)):
		return width, true
	case spansEnd(b[last.b0:last.b1]) > 0:
		return spansEnd(b[last.b0:last.b1]), true
	}
	// Nothing shows after the last region: the end is before it, if
	// anywhere. Rare (a line cut short, say): read the new line whole.
	all, ok := sc.spans(p, width, b, is)
	if !ok {
		return 0, false
	}
	sc.spanB = all
	return spansEnd(all[len(b):]), true
}

// piece is the part of a line's spans from one column on: its text from
// there (or "" past the line's end, where the line is blank) and style.
type piece struct {
	text  string
	st    *style
	cells int // columns left in it; for the blank past the end, unbounded
	rune  bool
}

func pieceAt(sp []span, i, col int) piece {
	if i >= len(sp) {
		return piece{cells: 1 << 30}
	}
	s := &sp[i]
	if !s.ascii() {
		return piece{text: s.text, st: s.st, cells: 1, rune: true}
	}
	off := col - s.col
	return piece{text: s.text[off:], st: s.st, cells: s.w - off}
}

// byteAt is the character of an ASCII piece at offset k; past its text
// (the blank past the end) a space.
func (p *piece) byteAt(k int) byte {
	if k < len(p.text) {
		return p.text[k]
	}
	return ' '
}

// sameCell tells whether the cells at offset k of two ASCII pieces look
// alike: the same character in the same style, or spaces that show the
// same background.
func sameCell(a, b *piece, k int) bool {
	ca, cb := a.byteAt(k), b.byteAt(k)
	if ca != cb {
		return false
	}
	return a.st == b.st || ca == ' ' && a.st.spaceStyle() == b.st.spaceStyle()
}

// diffRange is the columns where two simple lines differ, [lo, hi); lo
// == hi when they look the same. Both start in the same column (what
// comes before is the same), and past the end of either is blank.
func diffRange(a, b []span) (lo, hi int) {
	lo, hi = -1, -1
	i, j, col := 0, 0, 0
	switch {
	case len(a) > 0:
		col = a[0].col
	case len(b) > 0:
		col = b[0].col
	}
	for i < len(a) || j < len(b) {
		pa, pb := pieceAt(a, i, col), pieceAt(b, j, col)
		n := min(pa.cells, pb.cells)
		first, last := -1, -1
		switch {
		case pa.rune || pb.rune:
			if pa.text != pb.text || pa.st != pb.st {
				first, last = 0, 0 // a rune piece is one cell
			}
		case pa.st == pb.st && len(pa.text) >= n && len(pb.text) >= n && pa.text[:n] == pb.text[:n]:
		default:
			for k := range n {
				if !sameCell(&pa, &pb, k) {
					first = k
					break
				}
			}
			if first >= 0 {
				for k := n - 1; k >= first; k-- {
					if !sameCell(&pa, &pb, k) {
						last = k
						break
					}
				}
			}
		}
		if first >= 0 {
			if lo < 0 {
				lo = col + first
			}
			hi = col + last + 1
		}
		col += n
		if i < len(a) && n == pa.cells {
			i++
		}
		if j < len(b) && n == pb.cells {
			j++
		}
	}
	if lo < 0 {
		return 0, 0
	}
	return lo, hi
}

// spansEnd is one past the last cell of a line that is not blank (a
// space that shows the default background).
func spansEnd(sp []span) int {
	for i := len(sp) - 1; i >= 0; i-- {
		s := &sp[i]
		if !s.ascii() || s.st.spaceStyle() != nil {
			return s.col + s.w
		}
		for k := len(s.text) - 1; k >= 0; k-- {
			if s.text[k] != ' ' {
				return s.col + k + 1
			}
		}
	}
	return 0
}

// spanCells appends the cells of columns [lo, hi) of a line's spans to
// dst; past the line's end they are blank.
func spanCells(dst []cell, sp []span, lo, hi int) []cell {
	col := lo
	for i := range sp {
		s := &sp[i]
		if s.col+s.w <= col {
			continue
		}
		if col >= hi {
			break
		}
		if !s.ascii() {
			dst = append(dst, cell{text: s.text, style: s.st})
			col++
			continue
		}
		space := s.st.spaceStyle()
		for k := col - s.col; k < s.w && col < hi; k++ {
			c := cell{text: asciiText(s.text[k]), style: s.st}
			if s.text[k] == ' ' {
				c.style = space
			}
			dst = append(dst, c)
			col++
		}
	}
	for ; col < hi; col++ {
		dst = append(dst, blank)
	}
	return dst
}

// singleCell tells whether r, not ASCII, is a grapheme of its own that
// takes one cell wherever it stands next to ASCII or another such
// character, as ansi.DecodeSequence reads it: some Latin, punctuation,
// arrows, mathematical operators, box drawing, blocks and shapes. Each is
// checked against the decoder once, on first use.
func singleCell(r rune) bool {
	if r < singleLo || r >= singleHi {
		return false
	}
	singleOnce.Do(buildSingle)
	i := r - singleLo
	return singleBits[i/64]&(1<<(i%64)) != 0
}

const singleLo, singleHi = 0xa0, 0x2600

var (
	singleOnce sync.Once
	singleBits [(singleHi - singleLo + 63) / 64]uint64
)

func buildSingle() {
	ranges := [][2]rune{
		{0xa0, 0x250},    // Latin-1 Supplement, Latin Extended-A and -B
		{0x2010, 0x2028}, // dashes, quotes, bullets, ellipsis
		{0x2030, 0x205f},
		{0x2190, 0x2300}, // arrows, mathematical operators
		{0x2500, 0x2600}, // box drawing, blocks, geometric shapes
	}
	for _, rg := range ranges {
		for r := rg[0]; r < rg[1]; r++ {
			if checkSingle(string(r)) {
				i := r - singleLo
				singleBits[i/64] |= 1 << (i % 64)
			}
		}
	}
}

// checkSingle tells whether the decoder takes g as one cell and a grapheme
// of its own before and after ASCII and before itself.
func checkSingle(g string) bool {
	first := func(s string) (string, int) {
		seq, w, _, _ := ansi.DecodeSequence(s, ansi.NormalState, nil)
		return seq, w
	}
	if seq, w := first(g + "a"); seq != g || w != 1 {
		return false
	}
	if seq, _ := first("a" + g); seq != "a" {
		return false
	}
	seq, _ := first(g + g)
	return seq == g
}

// asciiChars holds every printable ASCII character once: cells of ASCII
// text point into it rather than into a frame, so that equal cells have
// equal text pointers (they compare without reading the text) and keep no
// frame alive.
const asciiChars = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

// asciiText is printable ASCII character c as a string.
func asciiText(c byte) string { return asciiChars[c-' ' : c-' '+1] }
