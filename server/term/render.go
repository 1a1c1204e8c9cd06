package term

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

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

	lines  []string // the last frame's lines, at most height, each within width
	redraw bool     // the screen's content is unknown: clear and draw all

	// Where the terminal's cursor and pen are after the bytes written so
	// far; x == -1 means unknown (after writing into the last column, where
	// terminals differ on what the cursor does next).
	x, y int
	pen  string // SGR parameters in effect, as converted; "" is the default

	old, cur []cell // scratch for one line's diff
}

// cell is one column of a line: the grapheme drawn there and its SGR
// parameters as the view wrote them. A wide grapheme's second column is a
// cell with empty text.
type cell struct {
	text  string
	style string
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
		r.x, r.y, r.pen = 0, 0, ""
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
	for y := range max(len(next), len(r.lines)) {
		var was, is string
		if y < len(r.lines) {
			was = r.lines[y]
		}
		if y < len(next) {
			is = next[y]
		}
		if was != is {
			r.line(out, y, was, is)
		}
	}
	r.lines = next
}

// Runs of changed cells closer than this are written as one, the cells
// between them included: a cursor move costs about as many bytes.
const mergeGap = 4

// line appends what turns row y from was into is.
func (r *renderer) line(out *bytes.Buffer, y int, was, is string) {
	r.old = r.cells(r.old[:0], was)
	r.cur = r.cells(r.cur[:0], is)
	old, cur := r.old, r.cur
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
		// A run of changes from x to stop, taking in short unchanged gaps.
		stop, same := x+1, 0
		for i := x + 1; i < end && same < mergeGap; i++ {
			if at(old, i) == cur[i] {
				same++
				continue
			}
			stop, same = i+1, 0
		}
		for stop < len(cur) && cur[stop].text == "" { // and end at one
			stop++
		}
		// Start at a whole wide grapheme, new or old: writing over half
		// of one blanks all of it.
		for x > 0 && (cur[x].text == "" || at(old, x).text == "") {
			x--
		}
		r.moveTo(out, x, y)
		for ; x < stop; x++ {
			if cur[x].text != "" {
				r.setPen(out, cur[x].style)
				out.WriteString(cur[x].text)
			}
			r.x = x + 1 // a wide grapheme's second cell follows it
		}
		if r.x >= r.width {
			r.x = -1
		}
	}
	// Anything the old line had past end goes.
	for x := end; x < len(old); x++ {
		if old[x] != blank {
			r.moveTo(out, end, y)
			r.setPen(out, "")
			out.WriteString(ansi.EraseLineRight)
			break
		}
	}
}

// cells cuts a styled line into cells, up to the screen's width.
func (r *renderer) cells(dst []cell, s string) []cell {
	var (
		state byte
		style string
		p     = ansi.GetParser()
	)
	defer ansi.PutParser(p)
	for len(s) > 0 && len(dst) < r.width {
		seq, width, n, newState := ansi.DecodeSequence(s, state, p)
		state = newState
		s = s[n:]
		switch {
		case width > 0:
			if len(dst)+width > r.width {
				return dst // a wide grapheme that does not fit is left out
			}
			dst = append(dst, cell{text: seq, style: style})
			for range width - 1 {
				dst = append(dst, cell{style: style})
			}
		case ansi.Cmd(p.Command()).Final() == 'm' && strings.HasPrefix(seq, "\x1b["):
			style = applySGR(style, seq[2:len(seq)-1])
		}
		// Other sequences and control characters take no cell; views have
		// no business moving the cursor, and are not trusted to.
	}
	return dst
}

// applySGR is the style after an SGR sequence's parameters: a reset
// forgets what came before, anything else adds to it.
func applySGR(style, params string) string {
	switch {
	case params == "" || params == "0":
		return ""
	case strings.HasPrefix(params, "0;"):
		return params[2:]
	case style == "":
		return params
	}
	return style + ";" + params
}

// setPen switches the terminal's pen to a view style.
func (r *renderer) setPen(out *bytes.Buffer, style string) {
	sgr := convertStyle(r.profile, style)
	if sgr == r.pen {
		return
	}
	switch {
	case sgr == "":
		out.WriteString(ansi.ResetStyle)
	case r.pen == "":
		out.WriteString("\x1b[" + sgr + "m")
	default:
		out.WriteString("\x1b[0;" + sgr + "m")
	}
	r.pen = sgr
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

// convertStyle is a view style's SGR parameters for a colour profile: the
// same conversion Bubble Tea applies to a whole frame, done once per style
// and profile for every session, since all sessions draw the same few
// styles. The cache has a bound, for views that make up colours.
func convertStyle(p colorprofile.Profile, style string) string {
	if style == "" || p == colorprofile.TrueColor {
		return style
	}
	key := styleKey{p, style}
	styles.RLock()
	sgr, ok := styles.m[key]
	styles.RUnlock()
	if ok {
		return sgr
	}
	var b bytes.Buffer
	w := colorprofile.Writer{Forward: &b, Profile: p}
	_, _ = w.WriteString("\x1b[" + style + "m")
	sgr = strings.TrimSuffix(strings.TrimPrefix(b.String(), "\x1b["), "m")
	if p <= colorprofile.NoTTY || sgr == "0" {
		sgr = ""
	}
	styles.Lock()
	if len(styles.m) < maxStyles {
		styles.m[key] = sgr
	}
	styles.Unlock()
	return sgr
}

type styleKey struct {
	p     colorprofile.Profile
	style string
}

const maxStyles = 4096

var styles = struct {
	sync.RWMutex
	m map[styleKey]string
}{m: make(map[styleKey]string)}
