// Temporary: the race screens' copy of what tui/draw draws with, until they move to a
// package of their own and draw with tui/draw.

package tui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/ssh2048/ssh2048/engine"
)

// tier is one tile size: w×h cells per tile, gx columns and gy rows of
// board between tiles. A terminal cell is about twice as tall as wide, so
// w ≈ 2h keeps tiles square-ish. View picks the largest tier that fits.
type tier struct{ w, h, gx, gy int }

var tiers = []tier{
	{6, 1, 2, 1}, // 8×8 in 66×17: fits 80×24 with the header and help
	{8, 3, 2, 1},
	{12, 5, 2, 1},
	{16, 7, 2, 1},
	{22, 9, 3, 1},
	{28, 13, 4, 2},
}

// boardSize is the width and height of an n×n board drawn with tier t.
func (t tier) boardSize(n int) (w, h int) {
	return n*t.w + (n+1)*t.gx, n*t.h + (n+1)*t.gy
}

// label is the text of a tile, at most width cells: the value, or for
// values too wide the binary-prefixed short form (16384 → "16k").
func label(exp uint8, width int) string {
	s := strconv.Itoa(engine.Value(exp))
	if len(s) <= width {
		return s
	}
	const units = "kMGTPE"
	u := int(exp)/10 - 1
	if u >= len(units) {
		u = len(units) - 1
	}
	return strconv.Itoa(1<<(int(exp)-10*(u+1))) + units[u:u+1]
}

// centre pads s with spaces to width cells, centred (s is ASCII or one
// cell per rune).
func centre(s string, width int) string {
	n := len([]rune(s))
	if n >= width {
		return s
	}
	left := (width - n) / 2
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", width-n-left)
}

// boardCache holds every styled piece of the board for one tier and one
// set of styles, so that drawing a frame is only string concatenation:
// View runs for every frame of every session.
type boardCache struct {
	t       tier
	n       int
	styles  *Styles
	gapCols string                           // gx board-coloured columns
	gapRow  string                           // one full board-coloured line
	tiles   [engine.MaxExponent + 1][]string // exponent → the tile's h lines, drawn on first use
	marked  [2][engine.MaxExponent + 1][]string
}

// mark is how a tile is marked on the frame after a move: the tile the
// move added, and the tiles its merges made, so that the player sees at
// once what the move did (the original game animates them).
type mark int

const (
	markNone   mark = iota
	markNew         // the label in reverse video: the new tile stands out
	markMerged      // the label underlined
)

// marks are the tiles the last move added and merged, drawn marked until
// the next move (no timer: the frame after the move shows them).
type marks struct {
	on     bool
	spawn  engine.Spawn
	merged engine.Board // merged tiles' exponents, 0 elsewhere
}

func (ms *marks) at(r, c int) mark {
	switch {
	case !ms.on:
		return markNone
	case ms.spawn.Row == r && ms.spawn.Col == c:
		return markNew
	case ms.merged.At(r, c) != 0:
		return markMerged
	}
	return markNone
}

func newBoardCache(s *Styles, t tier, n int) *boardCache {
	w, _ := t.boardSize(n)
	return &boardCache{
		t:       t,
		n:       n,
		styles:  s,
		gapCols: s.Board.Render(strings.Repeat(" ", t.gx)),
		gapRow:  s.Board.Render(strings.Repeat(" ", w)),
	}
}

// tile returns the styled lines of a tile, drawing it on first use.
func (c *boardCache) tile(exp uint8, mk mark) []string {
	cached := &c.tiles[exp]
	if mk != markNone {
		cached = &c.marked[mk-1][exp]
	}
	if *cached != nil {
		return *cached
	}
	st := c.styles.tile(exp)
	w, h := c.t.w, c.t.h
	raw := make([]string, h)
	mid := h / 2
	switch {
	case c.styles.Colour:
		// Colour tells tiles apart: a block of background, value centred.
		for i := range raw {
			raw[i] = strings.Repeat(" ", w)
		}
		if exp > 0 {
			raw[mid] = centre(label(exp, w-2), w)
		}
	case exp == 0:
		// No colour: an empty cell is blank with a dot in the middle.
		for i := range raw {
			raw[i] = strings.Repeat(" ", w)
		}
		raw[mid] = centre("·", w)
	case h == 1:
		raw[0] = "[" + centre(label(exp, w-2), w-2) + "]"
	default:
		// No colour, room for a box: draw one around the value.
		raw[0] = "┌" + strings.Repeat("─", w-2) + "┐"
		for i := 1; i < h-1; i++ {
			raw[i] = "│" + strings.Repeat(" ", w-2) + "│"
		}
		raw[mid] = "│" + centre(label(exp, w-4), w-2) + "│"
		raw[h-1] = "└" + strings.Repeat("─", w-2) + "┘"
	}
	// A row of a colour tile without its label shows nothing in the
	// tile's ink: only its background is written, and the frames a
	// screen keeps are that much smaller (a racer's by a tenth).
	blank := lipgloss.NewStyle().Background(st.GetBackground())
	lines := make([]string, h)
	for i, s := range raw {
		if c.styles.Colour && strings.TrimSpace(s) == "" {
			lines[i] = blank.Render(s)
		} else {
			lines[i] = st.Render(s)
		}
	}
	if mk != markNone && exp > 0 {
		lines[mid] = markLabel(st, raw[mid], mk)
	}
	*cached = lines
	return lines
}

// markLabel draws a tile's middle line with its label marked: in reverse
// video with a space either side (the new tile), or underlined.
func markLabel(st lipgloss.Style, line string, mk mark) string {
	start := strings.IndexFunc(line, func(r rune) bool { return r != ' ' && r != '│' && r != '[' })
	end := strings.LastIndexFunc(line, func(r rune) bool { return r != ' ' && r != '│' && r != ']' }) + 1
	if start < 0 || end <= start {
		return st.Render(line)
	}
	marked := st.Underline(true)
	if mk == markNew {
		marked = st.Reverse(true)
		if start > 0 && line[start-1] == ' ' {
			start--
		}
		if end < len(line) && line[end] == ' ' {
			end++
		}
	}
	return st.Render(line[:start]) + marked.Render(line[start:end]) + st.Render(line[end:])
}

// lines draws board b, which must be c.n×c.n, one string per line, with
// the tiles in ms marked. The lines share one allocation.
func (c *boardCache) lines(b *engine.Board, ms *marks) []string {
	_, h := c.t.boardSize(c.n)
	buf := make([]byte, 0, c.size(b, ms))
	ends := make([]int, 0, h)
	for i := range h {
		buf = c.appendLine(buf, i, b, ms)
		ends = append(ends, len(buf))
	}
	all := bytesString(buf)
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	return out
}

// size is how many bytes the lines of board b take.
func (c *boardCache) size(b *engine.Board, ms *marks) int {
	n, t := c.n, c.t
	size := (n*t.gy + t.gy) * len(c.gapRow)
	for r := range n {
		for col := range n {
			for _, l := range c.tile(b.At(r, col), ms.at(r, col)) {
				size += len(l)
			}
		}
	}
	return size + n*t.h*(n+1)*len(c.gapCols)
}

// appendLine appends line i of board b (see lines) to dst.
func (c *boardCache) appendLine(dst []byte, i int, b *engine.Board, ms *marks) []byte {
	t := c.t
	r, k := i/(t.gy+t.h), i%(t.gy+t.h)
	if r == c.n || k < t.gy {
		return append(dst, c.gapRow...)
	}
	for col := range c.n {
		dst = append(dst, c.gapCols...)
		dst = append(dst, c.tile(b.At(r, col), ms.at(r, col))[k-t.gy]...)
	}
	return append(dst, c.gapCols...)
}

// overlay replaces the middle of a board with the box's lines, centred in
// a band of board colour across the whole width. The band is widened to
// whole tile rows, so that no tile shows cut in half above or below it.
func (c *boardCache) overlay(board []string, boxLines []string) []string {
	bw, _ := c.t.boardSize(c.n)
	top := max(0, (len(board)-len(boxLines))/2)
	end := min(len(board), top+len(boxLines))
	isGap := func(i int) bool { return i%(c.t.h+c.t.gy) < c.t.gy }
	for top > 0 && !isGap(top-1) {
		top--
	}
	for end < len(board) && !isGap(end) {
		end++
	}
	blank := c.styles.Board.Render(strings.Repeat(" ", bw))
	band := make([]string, 0, max(end-top, len(boxLines)))
	above := (end - top - len(boxLines)) / 2
	for range above {
		band = append(band, blank)
	}
	for _, l := range boxLines {
		pad := bw - lipgloss.Width(l)
		if pad <= 0 {
			band = append(band, l)
			continue
		}
		left := pad / 2
		band = append(band, c.styles.Board.Render(strings.Repeat(" ", left))+l+c.styles.Board.Render(strings.Repeat(" ", pad-left)))
	}
	for len(band) < end-top {
		band = append(band, blank)
	}
	out := make([]string, 0, len(board)-(end-top)+len(band))
	out = append(out, board[:top]...)
	out = append(out, band...)
	return append(out, board[end:]...)
}
