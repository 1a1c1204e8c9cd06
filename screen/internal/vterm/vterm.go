// Package vterm is the tests' reading of what the renderer writes: a small
// virtual terminal (Term) that understands exactly the sequences the
// renderer may write and fails on anything else, and an independent
// reading of what a frame should look like (Want). The renderer's tests
// (package render) and the screen's (package screen) check that after
// every frame the virtual screen shows the frame. It is not the renderer
// run twice: it shares no code with it.
package vterm

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// pen is an SGR state as a terminal keeps it, compared semantically:
// "\x1b[1;31m" and "\x1b[31m\x1b[1m" are the same pen. It has the
// attributes and colours that terminals agree on; other parameters
// (fonts, rapid blink, double underline as 21, superscript…) are
// ignored, as many terminals ignore them, and a renderer may drop them.
type pen struct {
	attrs      uint16
	underline  int    // 0 none, 1 single, 2 double, 3 curly, 4 dotted, 5 dashed
	fg, bg, ul string // colourKey of the colour; "" is the default
}

const (
	penBold uint16 = 1 << iota
	penFaint
	penItalic
	penBlink
	penReverse
	penConceal
	penStrike
	penOverline
)

// penAttrs are the attributes' on and off parameters.
var penAttrs = map[int]struct {
	set   bool
	attrs uint16
}{
	1: {true, penBold}, 2: {true, penFaint}, 3: {true, penItalic},
	5: {true, penBlink}, 7: {true, penReverse},
	8: {true, penConceal}, 9: {true, penStrike}, 53: {true, penOverline},
	22: {false, penBold | penFaint}, 23: {false, penItalic},
	25: {false, penBlink}, 27: {false, penReverse},
	28: {false, penConceal}, 29: {false, penStrike}, 55: {false, penOverline},
}

// colourKey names a colour so that equal colours compare equal: an
// index (the 16 basic colours are the palette's first 16) or RGBA.
func colourKey(c color.Color) string {
	switch c := c.(type) {
	case nil:
		return ""
	case ansi.BasicColor:
		return "i" + strconv.Itoa(int(c))
	case ansi.IndexedColor:
		return "i" + strconv.Itoa(int(c))
	}
	r, g, b, a := c.RGBA()
	return fmt.Sprintf("#%04x%04x%04x%04x", r, g, b, a)
}

// convertColour is a colour as a terminal with profile p shows it.
func convertColour(p colorprofile.Profile, c color.Color) string {
	if c == nil || p < colorprofile.ANSI {
		return ""
	}
	return colourKey(p.Convert(c))
}

// sgr applies SGR parameters to the pen; colours are converted to
// profile p (TrueColor keeps them as they are).
func (pn *pen) sgr(p colorprofile.Profile, params ansi.Params) {
	if len(params) == 0 {
		*pn = pen{}
		return
	}
	for i := 0; i < len(params); i++ {
		v, more, _ := params.Param(i, 0)
		switch v {
		case 0:
			*pn = pen{}
		case 4:
			pn.underline = 1
			if more {
				if sub, _, ok := params.Param(i+1, 0); ok {
					i++
					if sub <= 5 {
						pn.underline = sub
					}
				}
			}
		case 24:
			pn.underline = 0
		case 38, 48, 58:
			var c color.Color
			n := ansi.ReadStyleColor(params[i:], &c)
			if n == 0 {
				break
			}
			i += n - 1
			key := convertColour(p, c)
			switch v {
			case 38:
				pn.fg = key
			case 48:
				pn.bg = key
			default:
				pn.ul = key
			}
		case 39:
			pn.fg = ""
		case 49:
			pn.bg = ""
		case 59:
			pn.ul = ""
		default:
			switch {
			case v >= 30 && v <= 37:
				pn.fg = convertColour(p, ansi.BasicColor(v-30))
			case v >= 40 && v <= 47:
				pn.bg = convertColour(p, ansi.BasicColor(v-40))
			case v >= 90 && v <= 97:
				pn.fg = convertColour(p, ansi.BasicColor(v-90+8))
			case v >= 100 && v <= 107:
				pn.bg = convertColour(p, ansi.BasicColor(v-100+8))
			default:
				if a, ok := penAttrs[v]; ok {
					if a.set {
						pn.attrs |= a.attrs
					} else {
						pn.attrs &^= a.attrs
					}
				}
			}
		}
		// Sub-parameters not taken are the parameter's own, and ignored.
		for i+1 < len(params) {
			if _, more, _ := params.Param(i, 0); !more {
				break
			}
			i++
		}
	}
}

// onSpace is what shows of a space drawn with the pen: its background,
// unless something is drawn across the cell.
func (pn pen) onSpace() pen {
	if pn.underline != 0 || pn.attrs&(penReverse|penStrike|penOverline) != 0 {
		return pn
	}
	return pen{bg: pn.bg}
}

func (pn pen) String() string {
	return fmt.Sprintf("{attrs:%#x underline:%d fg:%q bg:%q ul:%q}", pn.attrs, pn.underline, pn.fg, pn.bg, pn.ul)
}

// seqDecoder walks a view or the renderer's output as ansi.DecodeSequence
// does, with a parser that takes any number of parameters: ansi's own
// parser has room for 32 and panics on more (see TestRendererHostileViews).
type seqDecoder struct {
	p    *ansi.Parser
	size int
}

// decode returns the next sequence or grapheme of b; for a CSI sequence,
// cmd and params are its command and parameters.
func (d *seqDecoder) decode(b string, state byte) (seq string, width, n int, newState byte, cmd ansi.Cmd, params ansi.Params) {
	seq, width, n, newState = ansi.DecodeSequence(b, state, nil)
	if !ansi.HasCsiPrefix(seq) {
		return seq, width, n, newState, 0, nil
	}
	if k := strings.Count(seq, ";") + strings.Count(seq, ":") + 2; d.size < k {
		d.p, d.size = new(ansi.Parser), max(k, 64)
		d.p.SetParamsSize(d.size)
	}
	d.p.Reset()
	ansi.DecodeSequence(seq, ansi.NormalState, d.p)
	return seq, width, n, newState, ansi.Cmd(d.p.Command()), d.p.Params()
}

// isSGR reports whether a CSI sequence is SGR as the renderer reads
// views: ESC [, final m (prefixes and intermediates included).
func isSGR(seq string, cmd ansi.Cmd) bool {
	return strings.HasPrefix(seq, "\x1b[") && cmd.Final() == 'm'
}

// Cell is one column of a screen; a wide grapheme's second column has
// empty text.
type Cell struct {
	text string
	pen  pen
}

// brokenText marks a cell whose wide grapheme was half overwritten:
// terminals differ on what is left there, so a renderer must not leave
// one on the screen.
const brokenText = "<broken>"

var vblank = Cell{text: " "}

func (c Cell) looksLike(o Cell) bool {
	if c.text != o.text {
		return false
	}
	if c.text == " " {
		return c.pen.onSpace() == o.pen.onSpace()
	}
	return c.pen == o.pen
}

// Term is a virtual terminal that interprets exactly what the renderer
// may write: graphemes, CR, LF, BS, RI, CUU, CUD, CUF, CUB, CUP, ED 2,
// EL 0, SGR, and ECH if it has background colour erase (bce). Anything
// else is an error. It does not scroll, and does not wrap: a grapheme
// written after the last column (where the terminal's cursor waits to
// wrap) is an error, as is a line feed on the last row or a reverse index
// on the first. With onlcr, a line feed returns the carriage too, as the
// SSH library's emulated PTY makes it (it writes CR LF for LF).
type Term struct {
	w, h  int
	cells [][]Cell
	x, y  int
	wrap  bool // the last column was written: the cursor waits to wrap
	pen   pen

	// Lenient accepts what Screen writes around frames: private modes
	// (alternate screen, cursor), OSC (title, colour queries), the
	// cursor position query, DCS and device attributes (the terminal's
	// capabilities) and the title stack; after the alternate screen is
	// left, it ignores the rest.
	Lenient bool
	left    bool

	// BCE: the terminal takes ECH and erases with the pen's background.
	BCE bool
	// ONLCR: a line feed is written as CR LF on its way.
	ONLCR bool
}

// New returns a w×h terminal whose content is unknown (not blank: the
// renderer must draw all of it).
func New(w, h int) *Term {
	v := &Term{}
	v.Resize(w, h)
	return v
}

// Resize gives the terminal a new size, with unknown content: the
// renderer must draw all of it.
func (v *Term) Resize(w, h int) {
	v.w, v.h = w, h
	v.cells = make([][]Cell, h)
	for y := range v.cells {
		v.cells[y] = make([]Cell, w)
		for x := range v.cells[y] {
			v.cells[y][x] = Cell{text: "?", pen: pen{attrs: penBold, bg: "i1"}}
		}
	}
	v.x, v.y = min(v.x, w-1), min(v.y, h-1)
	v.wrap = false
}

// Apply interprets out.
func (v *Term) Apply(out []byte) error {
	var (
		d     seqDecoder
		state byte
		rest  = string(out)
	)
	for len(rest) > 0 && !v.left {
		seq, width, n, newState, cmd, params := d.decode(rest, state)
		if n == 0 {
			return fmt.Errorf("at byte %d: the decoder is stuck on %q", len(out)-len(rest), rest)
		}
		state = newState
		if err := v.do(seq, width, cmd, params); err != nil {
			return fmt.Errorf("at byte %d (%q): %w", len(out)-len(rest), seq, err)
		}
		rest = rest[n:]
	}
	if state != ansi.NormalState {
		return fmt.Errorf("output ends inside a sequence")
	}
	return nil
}

func (v *Term) do(seq string, width int, cmd ansi.Cmd, params ansi.Params) error {
	switch {
	case width > 0:
		return v.print(seq, width)
	case seq == "\r":
		v.x, v.wrap = 0, false
	case seq == "\n":
		if v.y+1 >= v.h {
			return fmt.Errorf("line feed on the last row scrolls the screen")
		}
		v.y++
		v.wrap = false
		if v.ONLCR {
			v.x = 0
		}
	case seq == "\b":
		// Terminals differ on where a backspace goes from where the
		// cursor waits to wrap, and on whether it goes back to the line
		// before from the first column.
		if v.wrap {
			return fmt.Errorf("backspace while the cursor waits to wrap")
		}
		if v.x == 0 {
			return fmt.Errorf("backspace in the first column")
		}
		v.x--
	case seq == ansi.ReverseIndex:
		if v.wrap {
			return fmt.Errorf("reverse index while the cursor waits to wrap")
		}
		if v.y == 0 {
			return fmt.Errorf("reverse index on the first row scrolls the screen")
		}
		v.y--
	case strings.HasPrefix(seq, "\x1b["):
		return v.csi(cmd, params)
	case v.Lenient && (strings.HasPrefix(seq, "\x1b]") || strings.HasPrefix(seq, "\x1bP")):
		// OSC and DCS: the screen's queries and its window title.
	default:
		return fmt.Errorf("unexpected sequence")
	}
	return nil
}

func (v *Term) print(g string, width int) error {
	if v.wrap {
		return fmt.Errorf("grapheme written after the last column: the terminal wraps (or scrolls)")
	}
	if v.x+width > v.w {
		return fmt.Errorf("grapheme of width %d at column %d of %d does not fit", width, v.x, v.w)
	}
	row := v.cells[v.y]
	// Writing over half of a wide grapheme breaks it.
	if row[v.x].text == "" && v.x > 0 {
		row[v.x-1] = Cell{text: brokenText}
	}
	end := v.x + width
	if end < v.w && row[end].text == "" {
		row[end] = Cell{text: brokenText}
	}
	row[v.x] = Cell{text: g, pen: v.pen}
	for x := v.x + 1; x < end; x++ {
		row[x] = Cell{pen: v.pen}
	}
	v.x = end
	if v.x >= v.w {
		v.x, v.wrap = v.w-1, true
	}
	return nil
}

// erased is an erased cell: blank, with the pen's background (the
// terminal's background colour erase).
func (v *Term) erased() Cell { return Cell{text: " ", pen: pen{bg: v.pen.bg}} }

func (v *Term) csi(cmd ansi.Cmd, params ansi.Params) error {
	if v.Lenient && cmd.Prefix() == 0 && cmd.Intermediate() == 0 && (cmd.Final() == 't' || cmd.Final() == 'c') {
		return nil // the window title's stack, and the device attributes query
	}
	if v.Lenient && cmd.Prefix() == '?' && cmd.Intermediate() == 0 && (cmd.Final() == 'h' || cmd.Final() == 'l') {
		if mode, _, _ := params.Param(0, 0); mode == 1049 && cmd.Final() == 'l' {
			v.left = true
		}
		return nil
	}
	if v.Lenient && cmd == 'n' { // a query: the cursor position
		return nil
	}
	if cmd.Prefix() != 0 || cmd.Intermediate() != 0 {
		return fmt.Errorf("unexpected CSI with prefix %q, intermediate %q", cmd.Prefix(), cmd.Intermediate())
	}
	if len(params) > 32 {
		return fmt.Errorf("%d parameters: terminals keep 32 at most", len(params))
	}
	arg := func(i, def int) int {
		n, _, _ := params.Param(i, def)
		if n == 0 {
			return def
		}
		return n
	}
	switch cmd.Final() {
	case 'A', 'B', 'C', 'D':
		// Relative moves: the renderer knows where the cursor is when it
		// makes one, so it never leans on terminals stopping it at the
		// edge, nor makes one while the cursor waits to wrap (terminals
		// differ on where it is then).
		if v.wrap {
			return fmt.Errorf("relative move while the cursor waits to wrap")
		}
		if len(params) > 1 {
			return fmt.Errorf("relative move with %d parameters", len(params))
		}
		n := arg(0, 1)
		x, y := v.x, v.y
		switch cmd.Final() {
		case 'A':
			y -= n
		case 'B':
			y += n
		case 'C':
			x += n
		case 'D':
			x -= n
		}
		if x < 0 || x >= v.w || y < 0 || y >= v.h {
			return fmt.Errorf("relative move to %d;%d, outside the %dx%d screen", y+1, x+1, v.w, v.h)
		}
		v.x, v.y = x, y
	case 'X':
		// ECH, with the background colour erase (bce) the renderer is
		// told the terminal has.
		if !v.BCE {
			return fmt.Errorf("ECH on a terminal without background colour erase")
		}
		if v.wrap {
			return fmt.Errorf("ECH while the cursor waits to wrap")
		}
		if len(params) > 1 {
			return fmt.Errorf("ECH with %d parameters", len(params))
		}
		n := arg(0, 1)
		row := v.cells[v.y]
		if row[v.x].text == "" && v.x > 0 {
			row[v.x-1] = Cell{text: brokenText}
		}
		end := min(v.x+n, v.w)
		if end < v.w && row[end].text == "" {
			row[end] = Cell{text: brokenText}
		}
		for x := v.x; x < end; x++ {
			row[x] = v.erased()
		}
	case 'H':
		row, col := arg(0, 1), arg(1, 1)
		if len(params) > 2 || row > v.h || col > v.w {
			return fmt.Errorf("cursor position %d;%d outside the %dx%d screen", row, col, v.w, v.h)
		}
		v.x, v.y, v.wrap = col-1, row-1, false
	case 'J':
		if n, _, _ := params.Param(0, 0); n != 2 || len(params) != 1 {
			return fmt.Errorf("only ED 2 is expected")
		}
		for _, row := range v.cells {
			for x := range row {
				row[x] = v.erased()
			}
		}
	case 'K':
		if n, _, _ := params.Param(0, 0); n != 0 || len(params) > 1 {
			return fmt.Errorf("only EL 0 is expected")
		}
		row := v.cells[v.y]
		if row[v.x].text == "" && v.x > 0 {
			row[v.x-1] = Cell{text: brokenText}
		}
		for x := v.x; x < v.w; x++ {
			row[x] = v.erased()
		}
		v.wrap = false
	case 'm':
		v.pen.sgr(colorprofile.TrueColor, params)
	default:
		return fmt.Errorf("unexpected CSI final %q", cmd.Final())
	}
	return nil
}

// Want is what a w×h screen shows after view on a terminal with
// profile p: the view's lines, one a row, each cut to the screen's width
// at the first grapheme that does not fit; lines past the height are
// left out. A line's style starts as the default; its SGR sequences
// apply in order, their colours as the profile shows them; other
// sequences and control characters take no cell. Two graphemes the
// view keeps apart (with a sequence, say) that are one grapheme when
// written together are one, in the first one's style: a terminal that
// is written them with nothing between joins them.
func Want(p colorprofile.Profile, w, h int, view string) [][]Cell {
	rows := make([][]Cell, h)
	lines := strings.Split(view, "\n")
	var d seqDecoder
	for y := range rows {
		row := make([]Cell, w)
		for x := range row {
			row[x] = vblank
		}
		rows[y] = row
		if y >= len(lines) {
			continue
		}
		var (
			line  = strings.TrimSuffix(lines[y], "\r")
			pn    pen
			x     int
			head  = -1 // the last grapheme's column
			apart bool // a sequence or control character came after it
			state byte
		)
		for len(line) > 0 {
			seq, width, n, newState, cmd, params := d.decode(line, state)
			state = newState
			line = line[n:]
			if width == 0 {
				if isSGR(seq, cmd) && cmd == 'm' && p > colorprofile.NoTTY {
					pn.sgr(p, params)
				}
				apart = true
				continue
			}
			cellPen := pn
			if apart && head >= 0 {
				// Written together, the terminal cuts graphemes anew.
				joined := row[head].text + seq
				if g, jw, _, _ := ansi.DecodeSequence(joined, ansi.NormalState, nil); len(g) > len(row[head].text) {
					seq, width, cellPen = g, jw, row[head].pen
					for ; x > head; x-- {
						row[x-1] = vblank
					}
					line = joined[len(g):] + line
				}
			}
			apart = false
			if x+width > w {
				break
			}
			head = x
			row[x] = Cell{text: seq, pen: cellPen}
			for i := 1; i < width; i++ {
				row[x+i] = Cell{pen: cellPen}
			}
			x += width
		}
	}
	return rows
}

// unspecified says why what a terminal shows for view is not agreed on,
// or is "": such views are left out of the random and fuzzed frames.
//   - A colour that does not parse, or parses only as ansi reads it
//     (38;5 without an index, 38;5;300, 38;1 for transparent, CMYK):
//     terminals, ansi.ReadStyleColor and the renderer each do their own
//     thing.
//   - Sub-parameters but a colour's (38:2::r:g:b) and an underline's
//     kind (4:0 to 4:5): terminals ignore the parameter, or the
//     sub-parameters, or read them as parameters.
//   - Invalid UTF-8: ansi.DecodeSequence makes one grapheme of
//     "\xce\xce" or two depending on what follows; terminals have their
//     own ways with it.
//   - A CSI sequence with a private marker (< = > ?) after its first
//     parameter byte ("\x1b[0>A"): terminals, as DEC's parser does,
//     ignore the whole sequence, and so does the renderer; ansi's decoder
//     ends it at the marker and prints what follows.
func unspecified(view string) string {
	if !utf8.ValidString(view) {
		return "invalid UTF-8"
	}
	for i := strings.Index(view, "\x1b["); i >= 0; {
		j := i + 2
		for j < len(view) && view[j] >= 0x30 && view[j] <= 0x3f {
			if j > i+2 && view[j] >= 0x3c {
				return "CSI with a private marker after its first parameter byte"
			}
			j++
		}
		next := strings.Index(view[j:], "\x1b[")
		if next < 0 {
			break
		}
		i = j + next
	}
	var d seqDecoder
	for rest, state := view, byte(0); len(rest) > 0; {
		seq, _, n, newState, cmd, params := d.decode(rest, state)
		state = newState
		rest = rest[n:]
		if !isSGR(seq, cmd) || cmd != 'm' {
			continue
		}
		for i := 0; i < len(params); i++ {
			v, more, _ := params.Param(i, 0)
			switch v {
			case 38, 48, 58:
				if !wellFormedColour(params[i:]) {
					return "SGR colour that does not parse"
				}
				var c color.Color
				i += ansi.ReadStyleColor(params[i:], &c) - 1
				if _, more, _ := params.Param(i, 0); more {
					return "SGR colour with sub-parameters left over"
				}
				continue
			case 4:
				if more {
					if sub, subMore, _ := params.Param(i+1, -1); sub < 0 || sub > 5 || subMore {
						return "SGR underline kind that does not parse"
					}
					i++
					continue
				}
			}
			if more {
				return "SGR sub-parameters"
			}
		}
	}
	return ""
}

// wellFormedColour reports whether params start with a colour that
// terminals agree on: 38;5;n, 38;2;r;g;b, 38:5:n, 38:2:r:g:b or
// 38:2:id:r:g:b (the id may be left out), all numbers within 0–255.
func wellFormedColour(params ansi.Params) bool {
	var c color.Color
	n := ansi.ReadStyleColor(params, &c)
	if n == 0 || c == nil {
		return false
	}
	colon := params[0].HasMore()
	switch kind, _, _ := params.Param(1, -1); {
	case kind == 5 && n == 3, kind == 2 && n == 5, kind == 2 && n == 6 && colon:
	default:
		return false
	}
	for i := range n {
		if more := params[i].HasMore(); more != (colon && i < n-1) {
			return false
		}
	}
	for i := max(2, n-3); i < n; i++ {
		if v, _, _ := params.Param(i, -1); v < 0 || v > 255 {
			return false
		}
	}
	return true
}

// Skip says why view is left out of random and fuzzed frames, or
// is "".
func Skip(view string) string { return unspecified(view) }

// Diff describes how got differs from want, or is "".
func Diff(got, want [][]Cell) string {
	var b strings.Builder
	for y := range want {
		for x := range want[y] {
			if !got[y][x].looksLike(want[y][x]) {
				fmt.Fprintf(&b, "row %d col %d: got %q %v, want %q %v\n", y, x,
					got[y][x].text, got[y][x].pen, want[y][x].text, want[y][x].pen)
				if b.Len() > 2000 {
					return b.String() + "…\n"
				}
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	b.WriteString("got:\n" + Text(got) + "want:\n" + Text(want))
	return b.String()
}

func Text(rows [][]Cell) string {
	var b strings.Builder
	for _, row := range rows {
		b.WriteString("|")
		for _, c := range row {
			b.WriteString(c.text)
		}
		b.WriteString("|\n")
	}
	return b.String()
}

// Cells is what the screen shows, by row.
func (v *Term) Cells() [][]Cell { return v.cells }

// Size is the terminal's size.
func (v *Term) Size() (w, h int) { return v.w, v.h }

// Cursor is where the cursor is.
func (v *Term) Cursor() (x, y int) { return v.x, v.y }

// Place puts the cursor at x, y, as a renderer that knows where it is
// expects it.
func (v *Term) Place(x, y int) { v.x, v.y, v.wrap = x, y, false }
