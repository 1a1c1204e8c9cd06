// Package render turns frames into the bytes that change a remote
// terminal from the last frame to the next. A frame is a view's styled
// text (lines with SGR sequences), as a Bubble Tea model's View gives it;
// the renderer knows nothing else of Bubble Tea. Package screen runs the
// model (input, commands, when to draw) and hands each frame here.
//
// It keeps only the last frame's text, a few kilobytes, rather than grids
// of cells as Bubble Tea's renderer does (two buffers the size of the
// terminal, each cell many times the bytes of its text: see
// docs/performance.md): lines are compared as strings, and only the
// columns that differ are made into cells, for as long as the frame takes
// (spans.go). What changed is then written in an order that saves bytes:
// few pen changes and cursor moves, erasing runs of coloured spaces where
// the terminal allows (emit.go). Styles are interned once for the
// process, per colour profile (style.go, cache.go).
//
// Three ways to hold less, for servers that run hundreds of screens:
//   - A frame written into a buffer from TakeText (FrameText) is read in
//     place; the renderer holds that buffer until the next frame, and
//     buffers go back to a short list (viewTexts).
//   - A renderer whose caller can write the last frame again lets go of
//     its text between frames (LetGo, Recall; recall.go).
//   - Renderers drawing the same views one after the other (spectators of
//     one game) share each frame's bytes (SharedFrame; shared.go).
package render

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// Renderer is one terminal's renderer: the last frame it drew, and where
// the terminal's cursor and pen are after it. It is not safe for
// concurrent use.
type Renderer struct {
	profile       colorprofile.Profile
	width, height int
	// ech: the terminal erases characters (ECH) with the pen's background
	// (see New).
	ech bool
	// lf: a line feed reaches the terminal as written, and moves the
	// cursor down a row in its column (see New).
	lf bool

	lines  []string // the last frame's lines as the view wrote them, at most height
	redraw bool     // the screen's content is unknown: clear and draw all
	// text is the buffer the last frame's lines are pieces of, when the
	// caller wrote its view into one from TakeText (FrameText); it
	// goes back to viewTexts when they are done with. Nil when they are
	// pieces of a view's string.
	text *[]byte
	// spare is the array of the lines before, for the next frame's lines.
	spare []string
	// lent: text was given back, and the caller keeps a copy (recall.go).
	lent lentFrame

	// Where the terminal's cursor and pen are after the bytes written so
	// far; x == -1 means unknown (after writing into the last column, where
	// terminals differ on what the cursor does next).
	x, y int
	pen  *style // the SGR style in effect
}

// scratch is what drawing a frame needs for a while: the changed lines'
// spans and cells, the pieces to write, and the SGR sequences met lately.
// Pooled, so that an idle session holds none.
type scratch struct {
	spanA, spanB []span // the two lines being compared
	regions      []region
	cells        []cell     // the changed lines' cells, old and new (see lineDiff)
	lines        []lineDiff // the frame's changed lines
	segs         []segment  // what to write, in the lines' order
	left         []int32    // the segments not written yet (see emit)
	needs        []uint64   // what the pen must be for each of them
	// full maps a space style to a style of the frame's text that shows
	// spaces alike (see spacePen).
	full   []fullStyle
	diffed []diffed // the last lines diffed (see again)

	// A frame repeats a few SGR sequences many times; looking each up in
	// the shared tables (hashing its text, under a lock) was most of the
	// time spent cutting lines. Two ways a set (see way), by a hash of the
	// sequence: direct-mapped, a game's sequences often met one another in
	// a slot, each time a trip to the shared tables (the commit that
	// brought this in has the figures).
	recent [256]sgrMemo
	// The transitions between styles, and the pens spacePen makes, met
	// lately: the same few, looked up many times a frame while choosing
	// what to write next, are read here rather than from the shared
	// tables (a lock and a map each). Two ways a set, by style ids
	// (direct-mapped, enough of a game's frames' look-ups missed to be
	// worth a second way; the same commit has the figures).
	trans [512]transMemo
	swaps [64]swapMemo
}

type transMemo struct {
	from, to *style
	seq      string
	set      bool
}

type swapMemo struct {
	p, sp, q *style
	set      bool
}

// transition is the package's transition, remembered.
func (sc *scratch) transition(from, to *style) string {
	if from == to {
		return ""
	}
	i := (from.idOf()*0x9e3779b1 ^ to.idOf()*0x85ebca6b) >> 24 * 2
	for k := i; k < i+2; k++ {
		if m := &sc.trans[k]; m.set && m.from == from && m.to == to {
			return m.seq
		}
	}
	seq := transition(from, to)
	sc.trans[i+1] = sc.trans[i]
	sc.trans[i] = transMemo{from: from, to: to, seq: seq, set: true}
	return seq
}

type sgrMemo struct {
	set     bool
	profile colorprofile.Profile
	from    sgrState
	params  string // a copy, so as not to keep a frame
	to      sgrState
	style   *style
}

// applySGR makes *view the view's style after an SGR sequence, and
// returns its look on a terminal with profile p. (In place: the style is
// changed on every sequence of every line read, and passing it in and out
// cost more than looking it up.)
func (sc *scratch) applySGR(p colorprofile.Profile, view *sgrState, params string) *style {
	from := *view
	// Hashed by length, first and last bytes (sequences that differ
	// differ mostly in their last colour), and the style before.
	n := len(params)
	h := uint32(n)*0x9e3779b1 ^ uint32(from.fg)*0x85ebca6b ^ uint32(from.bg)*0xc2b2ae35 ^ uint32(from.attrs)
	if n > 0 {
		h ^= uint32(params[0]) << 16
	}
	for k := max(0, n-4); k < n; k++ {
		h = h*31 + uint32(params[k])
	}
	i := (h ^ h>>15) % uint32(len(sc.recent)/2) * 2
	for k := i; k < i+2; k++ {
		if m := &sc.recent[k]; m.set && m.params == params && m.from == from && m.profile == p {
			*view = m.to
			return m.style
		}
	}
	to := applied(from, params)
	st := styleOf(p, to)
	// The set's other way keeps the one met before (a way of the two
	// evicted by age).
	sc.recent[i+1] = sc.recent[i]
	sc.recent[i] = sgrMemo{set: true, profile: p, from: from, params: strings.Clone(params), to: to, style: st}
	*view = to
	return st
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

// New returns a renderer for a width×height terminal (at least 1×1) with
// colour profile p, whose first frame is drawn whole. term is the
// terminal's TERM: where it names a terminal known to erase with the pen's
// background colour (bce), runs of coloured spaces are erased (ECH) rather
// than written. rawLineFeed tells that a line feed reaches the terminal as
// written, so that the renderer may move down by line feeds; without it a
// line feed is only written after a carriage return.
func New(p colorprofile.Profile, width, height int, term string, rawLineFeed bool) *Renderer {
	r := newRenderer(p, max(width, 1), max(height, 1))
	r.ech, r.lf = erasesWithBackground(term), rawLineFeed
	return r
}

func newRenderer(p colorprofile.Profile, width, height int) *Renderer {
	return &Renderer{profile: p, width: width, height: height, redraw: true}
}

// Resize gives the terminal a new size (at least 1×1), and makes the next
// frame a full redraw: the terminal may have rewrapped or cleared what was
// on it.
func (r *Renderer) Resize(width, height int) {
	r.width, r.height = max(width, 1), max(height, 1)
	r.redraw = true
}

// Size is the terminal's size.
func (r *Renderer) Size() (width, height int) { return r.width, r.height }

// Profile is the terminal's colour profile.
func (r *Renderer) Profile() colorprofile.Profile { return r.profile }

// SetProfile changes the colour profile; the next frame is a full redraw,
// as the colours of every cell on screen change.
func (r *Renderer) SetProfile(p colorprofile.Profile) {
	r.profile = p
	r.redraw = true
}

// Redraw makes the next frame a full redraw (tea.ClearScreen).
func (r *Renderer) Redraw() { r.redraw = true }

// Forget drops the last frame, for an idle screen: the next is a full
// redraw.
func (r *Renderer) Forget() {
	r.lines, r.spare = nil, nil
	r.lent = lentFrame{}
	r.hold(nil)
	r.redraw = true
}

// HoldsFrame reports whether the renderer holds any of the last frame's
// text (it does not after Forget or LetGo, nor before the first frame).
func (r *Renderer) HoldsFrame() bool { return r.text != nil || len(r.lines) > 0 }

// Frame appends to out what turns the screen into view.
func (r *Renderer) Frame(out *bytes.Buffer, view string) {
	r.diffFrame(out, view)
	r.hold(nil)
}

// FrameText is Frame for a view written into text, a buffer from
// TakeText, which the renderer holds from then on: its lines are pieces
// of it, read as strings without a copy, and it is not written while
// they are (until the next frame, or forget).
func (r *Renderer) FrameText(out *bytes.Buffer, text *[]byte) {
	r.diffFrame(out, unsafe.String(unsafe.SliceData(*text), len(*text)))
	r.hold(text)
}

// viewTexts are buffers for views' text (see TakeText): a player's
// screen holds one, with its last frame in it, and takes another for the
// next frame, giving the first back once that frame is drawn.
var viewTexts textList

// textList is the buffers for views' text that no screen holds:
// maxFreeTexts at most, the rest are left to the collector. (A sync.Pool
// keeps all it is given until two collections have passed, and screens
// give back many at once: when a race starts, each racer's screen gives
// back the lobby's text it held and holds none from then on (recall.go),
// and every racer's buffer of a load test's races was kept through the
// next collections, which set their goals by them.) Frames being drawn
// take a buffer or two each and give them back within the frame.
type textList struct {
	mu   sync.Mutex
	free []*[]byte
}

// maxFreeTexts is the most buffers textList keeps, and maxFreeText the
// largest: a frame of a very large window takes a buffer of its own.
const (
	maxFreeTexts = 64
	maxFreeText  = 64 << 10
)

// Get returns a buffer, empty or with a frame's text in it.
func (l *textList) Get() *[]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.free); n > 0 {
		t := l.free[n-1]
		l.free[n-1] = nil
		l.free = l.free[:n-1]
		return t
	}
	return new([]byte)
}

// Put gives t back: kept for another frame, or let go.
func (l *textList) Put(t *[]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.free) < maxFreeTexts && cap(*t) <= maxFreeText {
		l.free = append(l.free, t)
	}
}

// TakeText is a buffer for the next view's text, from viewTexts: unless
// that one is far larger than this screen's views (a larger window's),
// which is let go rather than held, for as long as the screen lives, for
// views a fraction of its size.
func (r *Renderer) TakeText() *[]byte {
	last := r.lent.n
	if r.text != nil {
		last = len(*r.text)
	}
	return r.takeTextFor(last)
}

// takeTextFor is takeText for a screen whose views are about last bytes.
func (r *Renderer) takeTextFor(last int) *[]byte {
	t := viewTexts.Get()
	if cap(*t) > 2*last+4096 {
		*t = nil
	}
	return t
}

// hold makes text the buffer the renderer's lines are pieces of (nil:
// none of the renderer's), and gives back the one they were before.
func (r *Renderer) hold(text *[]byte) {
	if r.text != nil {
		viewTexts.Put(r.text)
	}
	r.text = text
}

// diffFrame appends to out what turns the screen into view, and makes
// view's lines the renderer's.
func (r *Renderer) diffFrame(out *bytes.Buffer, view string) {
	if r.redraw {
		out.WriteString(ansi.ResetStyle + ansi.CursorHomePosition + ansi.EraseEntireScreen)
		r.lines = r.lines[:0]
		r.x, r.y, r.pen = 0, 0, nil
		r.redraw = false
	}
	next := splitLines(r.spare[:0], view, r.height)
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	sc.reset()
	for y := range max(len(next), len(r.lines)) {
		var was, is string
		if y < len(r.lines) {
			was = r.lines[y]
		}
		if y < len(next) {
			is = next[y]
		}
		if was != is && !sc.again(y, was, is) {
			l0, s0 := len(sc.lines), len(sc.segs)
			r.diff(sc, y, was, is)
			if len(sc.diffed) == cap(sc.diffed) {
				copy(sc.diffed, sc.diffed[1:])
				sc.diffed = sc.diffed[:len(sc.diffed)-1]
			}
			sc.diffed = append(sc.diffed, diffed{was, is, l0, len(sc.lines), s0, len(sc.segs)})
		}
	}
	r.emit(out, sc)
	// The old lines' array is the next frame's; emptied, so that it keeps
	// no view alive.
	clear(r.lines[:cap(r.lines)])
	r.lines, r.spare = next, r.lines[:0]
}

// splitLines appends view's lines to dst, at most height of them.
func splitLines(dst []string, view string, height int) []string {
	if cap(dst) < height {
		dst = make([]string, 0, height)
	}
	for len(dst) < height {
		line, rest, more := strings.Cut(view, "\n")
		dst = append(dst, strings.TrimSuffix(line, "\r"))
		if !more {
			break
		}
		view = rest
	}
	return dst
}

// lineDiff is a line that changed: its old and new cells from column lo
// (sc.cells[old:cur] and sc.cells[cur:stop], as many of each; past them
// the two are alike) and end, one past its last cell that is not blank.
type lineDiff struct {
	y, lo, end     int
	old, cur, stop int
}

func (sc *scratch) oldCells(l *lineDiff) []cell { return sc.cells[l.old:l.cur] }
func (sc *scratch) curCells(l *lineDiff) []cell { return sc.cells[l.cur:l.stop] }

func (sc *scratch) reset() {
	sc.cells, sc.lines, sc.segs, sc.full = sc.cells[:0], sc.lines[:0], sc.segs[:0], sc.full[:0]
	if sc.diffed == nil {
		sc.diffed = make([]diffed, 0, maxDiffed)
	}
	sc.diffed = sc.diffed[:0]
}

// diffed is a line's change that a later line of the frame may repeat:
// its old and new text, and the changed stretches (sc.lines[l0:l1]) and
// segments (sc.segs[s0:s1]) found for it.
type diffed struct {
	was, is        string
	l0, l1, s0, s1 int
}

// maxDiffed is how many of the frame's last changed lines a changed line
// is compared with. A row of tiles is a block of lines, each of its rows
// but the one with the labels the same text as the one above: a move that
// changes a tile changes them alike.
const maxDiffed = 3

// again adds the change of row y, from was to is, if it repeats one of
// the last lines' (the same texts): their stretches and segments, moved
// to row y. Cells are shared; they are not changed once made.
func (sc *scratch) again(y int, was, is string) bool {
	for k := len(sc.diffed) - 1; k >= 0; k-- {
		d := &sc.diffed[k]
		if len(d.is) != len(is) || len(d.was) != len(was) || d.is != is || d.was != was {
			continue
		}
		shift := len(sc.lines) - d.l0
		for _, l := range sc.lines[d.l0:d.l1] {
			l.y = y
			sc.lines = append(sc.lines, l)
		}
		for _, sg := range sc.segs[d.s0:d.s1] {
			sg.y, sg.line = y, sg.line+shift
			sc.segs = append(sc.segs, sg)
		}
		return true
	}
	return false
}

// diff finds what differs between the old and new text of row y and adds
// the pieces to write to sc.segs.
func (r *Renderer) diff(sc *scratch, y int, was, is string) {
	first := len(sc.lines)
	if end, ok := sc.walk(r.profile, r.width, was, is); ok {
		for _, rg := range sc.regions {
			a, b := sc.spanA[rg.a0:rg.a1], sc.spanB[rg.b0:rg.b1]
			lo, hi := diffRange(a, b)
			if lo == hi {
				continue // different text, same look
			}
			l := lineDiff{y: y, lo: lo, end: end, old: len(sc.cells)}
			sc.cells = spanCells(sc.cells, a, lo, hi)
			l.cur = len(sc.cells)
			sc.cells = spanCells(sc.cells, b, lo, hi)
			l.stop = len(sc.cells)
			sc.lines = append(sc.lines, l)
		}
	} else {
		// Both as long as the longer, blank past their end.
		l := lineDiff{y: y, old: len(sc.cells)}
		sc.cells = r.cells(sc, sc.cells, was)
		nOld := len(sc.cells) - l.old
		l.cur = len(sc.cells)
		sc.cells = r.cells(sc, sc.cells, is)
		nCur := len(sc.cells) - l.cur
		l.end = nCur
		for cur := sc.cells[l.cur:]; l.end > 0 && cur[l.end-1] == blank; {
			l.end--
		}
		for range nOld - nCur {
			sc.cells = append(sc.cells, blank)
		}
		if nCur > nOld {
			// Make room in old: move cur along.
			pad := nCur - nOld
			sc.cells = append(sc.cells, make([]cell, pad)...)
			copy(sc.cells[l.cur+pad:], sc.cells[l.cur:l.cur+nCur])
			for k := l.cur; k < l.cur+pad; k++ {
				sc.cells[k] = blank
			}
			l.cur += pad
		}
		l.stop = len(sc.cells)
		sc.lines = append(sc.lines, l)
	}
	for i := first; i < len(sc.lines); i++ {
		for _, c := range sc.curCells(&sc.lines[i]) {
			if c.text != " " && c.text != "" {
				sc.noteFull(c.style)
			}
		}
		r.segments(sc, i)
	}
	r.eraseRest(sc, first)
}

// cells appends the cells of a styled line to dst, up to the screen's
// width.
func (r *Renderer) cells(sc *scratch, dst []cell, s string) []cell {
	line := dst[len(dst):] // this line's cells, from column 0
	var (
		state byte
		view  sgrState // the style the view has set
		st    *style
		head  = -1 // the last grapheme's cell
		apart bool // something the terminal does not see came after it
	)
	for len(s) > 0 {
		if state == ansi.NormalState {
			// Most of a frame is runs of printable ASCII: a cell each,
			// joined to nothing (what follows the run's last byte is
			// ASCII too, or the run stops short of it).
			if k := asciiRun(s); k > 0 {
				room := r.width - len(line)
				if k > room {
					k = room
					s = s[:k] // the rest does not fit
				}
				sp := st.spaceStyle()
				for i := range k {
					c := cell{text: asciiText(s[i]), style: st}
					if s[i] == ' ' {
						c.style = sp
					}
					line = append(line, c)
				}
				head, apart = len(line)-1, false
				s = s[k:]
				continue
			}
		}
		seq, width, n, newState := nextSequence(s, state)
		state = newState
		s = s[n:]
		if width == 0 {
			if isStyleSequence(seq) {
				st = sc.applySGR(r.profile, &view, seq[2:len(seq)-1])
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
			prev := line[head]
			joined := prev.text + seq
			if g, w, _, _ := ansi.DecodeSequence(joined, ansi.NormalState, nil); len(g) > len(prev.text) {
				line = line[:head]
				if len(line)+w > r.width {
					break
				}
				line = append(line, cell{text: g, style: prev.style})
				for range w - 1 {
					line = append(line, cell{style: prev.style})
				}
				if rest := joined[len(g):]; rest != "" {
					s = rest + s // the part of seq that did not join, drawn after
				}
				apart = false
				continue
			}
		}
		apart = false
		if len(line)+width > r.width {
			break // a grapheme that does not fit is left out, and all after it
		}
		c := cell{text: seq, style: st}
		if seq == " " {
			c.style = st.spaceStyle()
		}
		head = len(line)
		line = append(line, c)
		for range width - 1 {
			line = append(line, cell{style: st})
		}
	}
	return append(dst, line...)
}

// asciiRun is how many bytes at the start of s are printable ASCII
// characters that are each a grapheme of their own: a byte not followed
// by one that could start a combining character.
func asciiRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	if i < len(s) && s[i] >= utf8.RuneSelf {
		i-- // the last may take what follows
	}
	return max(i, 0)
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
