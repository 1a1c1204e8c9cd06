package draw

import (
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/engine"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Line is one line of a frame and its width in cells, known as it is
// built: measuring styled text is the slowest part of drawing.
type Line struct {
	S string
	W int
}

// BoardDraw is the board a frame draws straight into its text, rather
// than into lines first: its cache, the board and its marks, the bytes
// its lines take, and where they are among the frame's lines
// (lines[at:at+n], which hold only their widths).
type BoardDraw struct {
	Cache *BoardCache
	Board engine.Board
	Marks *Marks
	Bytes int
	At, N int
	// Motion, when set, is the frame of a move in flight to draw in
	// place of Board (see Motion).
	Motion *Motion
	// Side are lines written beside the board's first rows, Gap columns
	// right of it (a panel); Bytes counts them and the gaps.
	Side []Line
	Gap  int
}

const Spaces = "                                                                                                                                "

// AppendPad appends n spaces.
func AppendPad(dst []byte, n int) []byte {
	for ; n > 0; n -= len(Spaces) {
		dst = append(dst, Spaces[:min(n, len(Spaces))]...)
	}
	return dst
}

// CentreLines places lines in the middle of a width×height window, each
// line centred on its own. The renderer clears what the frame leaves out,
// so there is no padding on the right or below.
func CentreLines(lines []Line, width, height int) string {
	blockW, size := 0, 0
	for _, l := range lines {
		blockW = max(blockW, l.W)
		size += len(l.S) + 1
	}
	top := max(0, (height-len(lines))/2)
	left := max(0, (width-blockW)/2)
	b := make([]byte, 0, top+size+len(lines)*left+blockW)
	for range top {
		b = append(b, '\n')
	}
	for i, l := range lines {
		b = append(AppendPad(b, left+(blockW-l.W)/2), l.S...)
		if i < len(lines)-1 {
			b = append(b, '\n')
		}
	}
	return BytesString(b)
}

// AppendCentred appends lines to dst placed in the middle of a
// width×height window, each line centred in the window on its own, rather
// than in the block of them (CentreLines): the same to a column, but a
// line's place does not depend on the others' widths. The game's header
// grows a column now and then (a score's digit, the move count's), and
// with it the block; the board, centred in the block, moved a column with
// it, and the frame redrew all of it, several times the bytes of a move's
// frame (the commit that brought this in has the figures). The board's
// lines, if any, are drawn from bd.
func AppendCentred(dst []byte, lines []Line, width, height int, bd *BoardDraw) []byte {
	size := bd.Bytes
	for _, l := range lines {
		size += len(l.S) + 1 + max(0, (width-l.W)/2)
	}
	top := max(0, (height-len(lines))/2)
	dst = slices.Grow(dst, top+size)
	for range top {
		dst = append(dst, '\n')
	}
	for i, l := range lines {
		dst = AppendPad(dst, (width-l.W)/2)
		if i >= bd.At && i < bd.At+bd.N {
			if bd.Motion != nil {
				dst = bd.Cache.AppendMotionLine(dst, i-bd.At, bd.Motion)
			} else {
				dst = bd.Cache.AppendLine(dst, i-bd.At, &bd.Board, bd.Marks)
			}
			if k := i - bd.At; k < len(bd.Side) && bd.Side[k].S != "" {
				dst = append(AppendPad(dst, bd.Gap), bd.Side[k].S...)
			}
		} else {
			dst = append(dst, l.S...)
		}
		if i < len(lines)-1 {
			dst = append(dst, '\n')
		}
	}
	return dst
}

// BytesString is b as a string, without a copy: b must be the caller's
// alone and never written again (as strings.Builder's String has it).
func BytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Ink is a style reduced to the escape codes around its text, so that the
// header, drawn every frame, costs concatenation only. It holds for styles
// without padding, borders or width, which is all the header uses.
type Ink struct{ Pre, Post string }

func InkOf(st lipgloss.Style) Ink {
	s := st.Render("x")
	i := strings.IndexByte(s, 'x')
	return Ink{s[:i], s[i+1:]}
}

// AppendText appends s in this ink to dst and returns it and the text's
// width: s must be one cell per rune.
func (k Ink) AppendText(dst []byte, s string) ([]byte, int) {
	dst = append(append(append(dst, k.Pre...), s...), k.Post...)
	return dst, utf8.RuneCountInString(s)
}

// Bytes is what the ink adds to the text it is written around.
func (k Ink) Bytes() int { return len(k.Pre) + len(k.Post) }

// Text appends s in this ink and returns its width: s must be one cell per
// rune.
func (k Ink) Text(sb *strings.Builder, s string) int {
	sb.WriteString(k.Pre)
	sb.WriteString(s)
	sb.WriteString(k.Post)
	return utf8.RuneCountInString(s)
}

// Figure is a header's value: a number after a prefix ("#12", "+32"), or
// text ("–", "guest") where there is no number. The header writes numbers
// straight into its line: made into strings first, they were a large
// share of a move's frame's allocations (the commit that brought this in
// has the figures).
type Figure struct {
	prefix, Text string
	n            int
	num          bool
}

func Number(prefix string, n int) Figure { return Figure{prefix: prefix, n: n, num: true} }

func (f Figure) String() string {
	if !f.num {
		return f.Text
	}
	return f.prefix + strconv.Itoa(f.n)
}

// Width is how many cells f takes, worked out without writing it.
func (f Figure) Width() int {
	if !f.num {
		return utf8.RuneCountInString(f.Text)
	}
	w, n := len(f.prefix)+1, f.n
	if n < 0 {
		w, n = w+1, -n
	}
	for ; n >= 10; n /= 10 {
		w++
	}
	return w
}

// Figure appends f in this ink, padded with spaces to pad cells, and
// returns its width.
func (k Ink) Figure(sb *strings.Builder, f Figure, pad int) int {
	var b [64]byte
	d, w := k.AppendFigure(b[:0], f, pad)
	sb.Write(d)
	return w
}

// AppendFigure is Figure appending to dst.
func (k Ink) AppendFigure(dst []byte, f Figure, pad int) ([]byte, int) {
	dst = append(dst, k.Pre...)
	w := utf8.RuneCountInString(f.Text)
	if f.num {
		at := len(dst)
		dst = strconv.AppendInt(append(dst, f.prefix...), int64(f.n), 10)
		w = utf8.RuneCount(dst[at:])
	} else {
		dst = append(dst, f.Text...)
	}
	if w < pad {
		dst = append(dst, Spaces[:pad-w]...)
		w = pad
	}
	return append(dst, k.Post...), w
}

// WrapWords wraps every line of s by words to width cells, cutting a word
// only when it alone is wider.
func WrapWords(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			wrapped := strings.Split(ansi.Wrap(l, width, ""), "\n")
			for j, w := range wrapped {
				wrapped[j] = strings.TrimRight(w, " ")
			}
			lines[i] = strings.Join(wrapped, "\n")
		}
	}
	return strings.Join(lines, "\n")
}

// Relabel returns b with another description, for a key whose meaning
// depends on the screen (tab opens the leaderboard and goes back from it).
func Relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// Widest is the width of the widest of lines.
func Widest(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// JoinColumns puts columns of lines side by side, four spaces apart.
func JoinColumns(cols [][]string, rows int) []string {
	widths := make([]int, len(cols))
	for i, col := range cols {
		for _, l := range col {
			widths[i] = max(widths[i], ansi.StringWidth(l))
		}
	}
	out := make([]string, rows)
	for r := range rows {
		var b strings.Builder
		for i, col := range cols {
			if i > 0 {
				b.WriteString("    ")
			}
			cell := ""
			if r < len(col) {
				cell = col[r]
			}
			b.WriteString(cell)
			if i < len(cols)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(cell)))
			}
		}
		out[r] = b.String()
	}
	return out
}

// PadCells cuts s to n cells, with an ellipsis, or pads it to n with
// spaces on the right.
func PadCells(s string, n int) string {
	s = ansi.Truncate(s, n, "…")
	return s + strings.Repeat(" ", max(0, n-ansi.StringWidth(s)))
}
