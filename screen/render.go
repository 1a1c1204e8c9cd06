package screen

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// renderer turns frames (a view's styled text) into the bytes that change
// the remote screen from the last frame to the next: only the cells that
// differ are written, with cursor moves between them.
//
// It keeps only the last frame's text, a few kilobytes, rather than grids
// of cells as Bubble Tea's renderer does (two buffers of about 120 bytes a
// cell, 460 KB for 80×24): lines are compared as strings, and only the
// lines that differ are cut into cells, for as long as the diff takes.
type renderer struct {
	profile       colorprofile.Profile
	width, height int

	lines  []string // the last frame's lines as the view wrote them, at most height
	redraw bool     // the screen's content is unknown: clear and draw all

	// Where the terminal's cursor and pen are after the bytes written so
	// far; x == -1 means unknown (after writing into the last column, where
	// terminals differ on what the cursor does next).
	x, y int
	pen  *style // the SGR style in effect
}

// scratch is what drawing a frame needs for a while: two lines' cells
// while they are compared, and the SGR sequences met lately. Pooled, so
// that an idle session holds none.
type scratch struct {
	old, cur []cell

	// A frame repeats a few SGR sequences many times; looking each up in
	// the shared tables (hashing its text) was most of the time spent
	// cutting lines.
	recent    [64]sgrMemo
	recentPos int
}

type sgrMemo struct {
	profile colorprofile.Profile
	from    sgrState
	params  string // a copy, so as not to keep a frame
	to      sgrState
	style   *style
}

// applySGR is the view's style after an SGR sequence, and its look on a
// terminal with profile p.
func (sc *scratch) applySGR(p colorprofile.Profile, from sgrState, params string) (sgrState, *style) {
	for i := range sc.recent {
		if m := &sc.recent[i]; m.from == from && m.params == params && m.profile == p {
			return m.to, m.style
		}
	}
	to := applied(from, params)
	st := styleOf(p, to)
	sc.recent[sc.recentPos] = sgrMemo{profile: p, from: from, params: strings.Clone(params), to: to, style: st}
	sc.recentPos = (sc.recentPos + 1) % len(sc.recent)
	return to, st
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// cell is one column of a line: the grapheme drawn there and its style.
// A wide grapheme's second column is a cell with empty text. A space's
// style is what shows of it (see style.space), so that spaces that look
// alike compare equal and are not redrawn.
type cell struct {
	text  string
	style *style
}

var blank = cell{text: " "}

func newRenderer(p colorprofile.Profile, width, height int) *renderer {
	return &renderer{profile: p, width: width, height: height, redraw: true}
}

// resize makes the next frame a full redraw: the terminal may have
// rewrapped or cleared what was on it.
func (r *renderer) resize(width, height int) {
	r.width, r.height = width, height
	r.redraw = true
}

// frame appends to out what turns the screen into view.
func (r *renderer) frame(out *bytes.Buffer, view string) {
	if r.redraw {
		out.WriteString(ansi.ResetStyle + ansi.CursorHomePosition + ansi.EraseEntireScreen)
		r.lines = r.lines[:0]
		r.x, r.y, r.pen = 0, 0, nil
		r.redraw = false
	}
	next := make([]string, 0, r.height)
	for len(next) < r.height {
		line, rest, more := strings.Cut(view, "\n")
		next = append(next, strings.TrimSuffix(line, "\r"))
		if !more {
			break
		}
		view = rest
	}
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	for y := range max(len(next), len(r.lines)) {
		var was, is string
		if y < len(r.lines) {
			was = r.lines[y]
		}
		if y < len(next) {
			is = next[y]
		}
		if was != is {
			r.line(out, sc, y, was, is)
		}
	}
	r.lines = next
}

// line appends what turns row y from was into is.
func (r *renderer) line(out *bytes.Buffer, sc *scratch, y int, was, is string) {
	sc.old = r.cells(sc, sc.old[:0], was)
	sc.cur = r.cells(sc, sc.cur[:0], is)
	old, cur := sc.old, sc.cur
	// Past the last cell that is not blank, the new line is cleared to its
	// end with one erase instead of being written.
	end := len(cur)
	for end > 0 && cur[end-1] == blank {
		end--
	}
	at := func(cs []cell, x int) cell {
		if x < len(cs) {
			return cs[x]
		}
		return blank
	}
	for x := 0; x < end; {
		if at(old, x) == cur[x] {
			x++
			continue
		}
		// Start at a whole wide grapheme, new or old: writing over half
		// of one blanks all of it.
		for x > 0 && (cur[x].text == "" || at(old, x).text == "") {
			x--
		}
		r.moveTo(out, x, y)
		for x < end {
			if at(old, x) == cur[x] && cur[x].text != "" {
				// Unchanged cells up to the next change: written over
				// if that takes fewer bytes than moving past them.
				next := x
				for next < end && at(old, next) == cur[next] {
					next++
				}
				if next == end || r.cost(cur[x:next]) > cursorForwardLen(next-x) {
					x = next
					break
				}
			}
			if c := cur[x]; c.text != "" {
				r.put(out, c)
			}
			x++
			r.x = x // a wide grapheme's second cell follows it
		}
		if r.x >= r.width {
			r.x = -1
		}
	}
	// Anything the old line had past end goes.
	for x := end; x < len(old); x++ {
		if old[x] != blank {
			r.moveTo(out, end, y)
			r.setPen(out, nil)
			out.WriteString(ansi.EraseLineRight)
			break
		}
	}
}

// cells cuts a styled line into cells, up to the screen's width.
func (r *renderer) cells(sc *scratch, dst []cell, s string) []cell {
	var (
		state byte
		view  sgrState // the style the view has set
		st    *style
		head  = -1 // the last grapheme's cell
		apart bool // something the terminal does not see came after it
	)
	for len(s) > 0 {
		seq, width, n, newState := nextSequence(s, state)
		state = newState
		s = s[n:]
		if width == 0 {
			if isStyleSequence(seq) {
				view, st = sc.applySGR(r.profile, view, seq[2:len(seq)-1])
			}
			// Other sequences and control characters take no cell: views
			// have no business moving the cursor or setting modes, and
			// are not trusted to.
			apart = true
			continue
		}
		if apart && head >= 0 && seq[0] >= utf8.RuneSelf { // ASCII joins nothing before it
			// Graphemes the view kept apart (with a style change, say)
			// join on the terminal, wholly or in part, when written
			// together: the terminal's graphemes are what counts.
			prev := dst[head]
			joined := prev.text + seq
			if g, w, _, _ := ansi.DecodeSequence(joined, ansi.NormalState, nil); len(g) > len(prev.text) {
				dst = dst[:head]
				if len(dst)+w > r.width {
					break
				}
				dst = append(dst, cell{text: g, style: prev.style})
				for range w - 1 {
					dst = append(dst, cell{style: prev.style})
				}
				if rest := joined[len(g):]; rest != "" {
					s = rest + s // the part of seq that did not join, drawn after
				}
				apart = false
				continue
			}
		}
		apart = false
		if len(dst)+width > r.width {
			break // a grapheme that does not fit is left out, and all after it
		}
		c := cell{text: seq, style: st}
		if seq == " " {
			c.style = st.spaceStyle()
		}
		head = len(dst)
		dst = append(dst, c)
		for range width - 1 {
			dst = append(dst, cell{style: st})
		}
	}
	return dst
}

// nextSequence is ansi.DecodeSequence(s, state, nil), with the two kinds
// that make up most of a frame decoded here, several times faster: an
// ASCII character that no combining character follows, and a CSI
// sequence (SGR, mostly).
func nextSequence(s string, state byte) (seq string, width, n int, newState byte) {
	if state == ansi.NormalState {
		if c := s[0]; c >= 0x20 && c < 0x7f && (len(s) == 1 || s[1] < utf8.RuneSelf) {
			return s[:1], 1, 1, state
		}
		if len(s) > 2 && s[0] == ansi.ESC && s[1] == '[' {
			i := 2
			for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f { // parameters
				i++
			}
			for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f { // intermediates
				i++
			}
			if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
				return s[:i+1], 0, i + 1, state
			}
		}
	}
	return ansi.DecodeSequence(s, state, nil)
}

// put writes one cell at the cursor.
func (r *renderer) put(out *bytes.Buffer, c cell) {
	// A space needs only a pen that draws spaces alike.
	if c.text != " " || c.style != r.pen.spaceStyle() {
		r.setPen(out, c.style)
	}
	out.WriteString(c.text)
}

// cost is how many bytes writing cs at the cursor takes.
func (r *renderer) cost(cs []cell) int {
	n, pen := 0, r.pen
	for _, c := range cs {
		if c.text == "" {
			continue
		}
		if c.text != " " || c.style != pen.spaceStyle() {
			n += len(transition(pen, c.style))
			pen = c.style
		}
		n += len(c.text)
	}
	return n
}

// setPen switches the terminal's pen to a style.
func (r *renderer) setPen(out *bytes.Buffer, st *style) {
	out.WriteString(transition(r.pen, st))
	r.pen = st
}

// cursorForwardLen is len(ansi.CursorForward(n)), without making it.
func cursorForwardLen(n int) int {
	if n <= 1 {
		return len("\x1b[C")
	}
	return len("\x1b[C") + len(strconv.Itoa(n))
}

// moveTo moves the cursor to column x of row y with the fewest bytes.
func (r *renderer) moveTo(out *bytes.Buffer, x, y int) {
	switch {
	case r.x == x && r.y == y:
		return
	case r.y == y && r.x >= 0 && x > r.x:
		out.WriteString(ansi.CursorForward(x - r.x))
	case r.y == y && x == 0:
		out.WriteByte('\r')
	case y == r.y+1 && x == 0 && r.x >= 0:
		out.WriteString("\r\n")
	default:
		out.WriteString("\x1b[" + strconv.Itoa(y+1) + ";" + strconv.Itoa(x+1) + "H")
	}
	r.x, r.y = x, y
}
