package draw

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/ssh2048/ssh2048/engine"
)

// Tier is one tile size: W×H cells per tile, GX columns and GY rows of
// board between tiles. A terminal cell is about twice as tall as wide, so
// w ≈ 2h keeps tiles square-ish. View picks the largest tier that fits.
type Tier struct{ W, H, GX, GY int }

// Tiers are the tile sizes, smallest first.
var Tiers = []Tier{
	{6, 1, 2, 1}, // 8×8 in 66×17: fits 80×24 with the header and help
	{8, 3, 2, 1},
	{12, 5, 2, 1},
	{16, 7, 2, 1},
	{22, 9, 3, 1},
	{28, 13, 4, 2},
}

// BoardSize is the width and height of an n×n board drawn with tier t.
func (t Tier) BoardSize(n int) (w, h int) {
	return n*t.W + (n+1)*t.GX, n*t.H + (n+1)*t.GY
}

// Label is the text of a tile, at most width cells: the value, or for
// values too wide the binary-prefixed short form (16384 → "16k").
func Label(exp uint8, width int) string {
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

// BoardCache holds every styled piece of the board for one tier and one
// set of styles, so that drawing a frame is only string concatenation:
// View runs for every frame of every session.
type BoardCache struct {
	Tier    Tier
	N       int
	styles  *Styles
	gapCols string                           // GX board-coloured columns
	gapRow  string                           // one full board-coloured line
	tiles   [engine.MaxExponent + 1][]string // exponent → the tile's h lines, drawn on first use
	marked  [2][engine.MaxExponent + 1][]string
	motion  runs // for motion frames (motion.go)
}

// Mark is how a tile is marked on the frame after a move: the tile the
// move added, and the tiles its merges made, so that the player sees at
// once what the move did (the original game animates them).
type Mark int

const (
	MarkNone   Mark = iota
	MarkNew         // the label in reverse video: the new tile stands out
	MarkMerged      // the label underlined
)

// Marks are the tiles the last move added and merged, drawn marked until
// the next move (no timer: the frame after the move shows them).
type Marks struct {
	On     bool
	Spawn  engine.Spawn
	Merged engine.Board // merged tiles' exponents, 0 elsewhere
}

func (ms *Marks) at(r, c int) Mark {
	switch {
	case !ms.On:
		return MarkNone
	case ms.Spawn.Row == r && ms.Spawn.Col == c:
		return MarkNew
	case ms.Merged.At(r, c) != 0:
		return MarkMerged
	}
	return MarkNone
}

func NewBoardCache(s *Styles, t Tier, n int) *BoardCache {
	w, _ := t.BoardSize(n)
	return &BoardCache{
		Tier:    t,
		N:       n,
		styles:  s,
		gapCols: s.Board.Render(strings.Repeat(" ", t.GX)),
		gapRow:  s.Board.Render(strings.Repeat(" ", w)),
	}
}

// Tile returns the styled lines of a tile, drawing it on first use.
func (c *BoardCache) Tile(exp uint8, mk Mark) []string {
	cached := &c.tiles[exp]
	if mk != MarkNone {
		cached = &c.marked[mk-1][exp]
	}
	if *cached == nil {
		*cached = c.styles.TileLines(exp, mk, c.Tier.W, c.Tier.H)
	}
	return *cached
}

// TileLines draws one tile of w×h cells: value exp (0: an empty cell),
// marked mk, one string per row, each w cells wide. Every board draws its
// tiles with it (BoardCache keeps them for its tier); a screen that draws
// a tile anywhere else, at another size (a tile on its way between two
// cells, a merged tile grown for a moment), calls it for that tile and
// places the rows itself. A tile with room shows its value in block
// digits (PickDigits).
func (s *Styles) TileLines(exp uint8, mk Mark, w, h int) []string {
	st := s.Tile(exp)
	raw := make([]string, h)
	for i := range raw {
		raw[i] = Spaces[:min(w, len(Spaces))]
	}
	mid := h / 2
	// The label's rows and columns within the tile, for its mark.
	top, rows, left, labelW := mid, 1, 0, 0
	boxed := !s.Colour && exp > 0 && h > 1
	inner := w - 2 // the label keeps a cell either side
	if boxed {
		inner = w - 4 // and the box's border
	}
	switch {
	case exp == 0 && s.Colour:
		// Colour tells tiles apart: an empty cell is its background.
	case exp == 0:
		// No colour: an empty cell is blank with a dot in the middle.
		raw[mid] = centre("·", w)
	case !s.Colour && h == 1:
		label := Label(exp, w-2)
		raw[0] = "[" + centre(label, w-2) + "]"
		left, labelW = 1+(w-2-len(label))/2, len(label)
	default:
		label := Label(exp, inner)
		big := BigDigits(label, PickDigits(label, inner, h-2, h))
		rows, labelW = len(big), len([]rune(big[0]))
		top, left = (h-rows)/2, (w-labelW)/2
		for i, g := range big {
			raw[top+i] = Spaces[:left] + g + Spaces[:w-left-labelW]
		}
		if boxed {
			for i := 1; i < h-1; i++ {
				raw[i] = "│" + string([]rune(raw[i])[1:w-1]) + "│"
			}
			raw[0] = "┌" + strings.Repeat("─", w-2) + "┐"
			raw[h-1] = "└" + strings.Repeat("─", w-2) + "┘"
		}
	}
	// A row of a colour tile without its label shows nothing in the
	// tile's ink: only its background is written, and the frames a
	// screen keeps are that much smaller (a racer's by a tenth).
	blank := lipgloss.NewStyle().Background(st.GetBackground())
	lines := make([]string, h)
	for i, r := range raw {
		if s.Colour && strings.TrimSpace(r) == "" {
			lines[i] = blank.Render(r)
		} else {
			lines[i] = st.Render(r)
		}
	}
	if mk == MarkNone || exp == 0 || labelW == 0 {
		return lines
	}
	// The new tile's label in reverse video, a cell wider either side;
	// a merged tile's underlined (its last row, where block digits
	// stand on the line).
	marked, from, to := st.Underline(true), left, left+labelW
	if mk == MarkNew {
		marked, from, to = st.Reverse(true), max(from-1, 0), min(to+1, w)
		if !s.Colour { // not over the box or the brackets
			from, to = max(from, 1), min(to, w-1)
		}
	} else {
		top, rows = top+rows-1, 1
	}
	// The marked part in one run of its ink (lipgloss writes an
	// underline's every character in a sequence of its own).
	ink := InkOf(marked)
	for i := top; i < top+rows; i++ {
		r := []rune(raw[i])
		lines[i] = st.Render(string(r[:from])) + ink.Pre + string(r[from:to]) + ink.Post + st.Render(string(r[to:]))
	}
	return lines
}

// Lines draws board b, which must be c.n×c.n, one string per line, with
// the tiles in ms marked. The lines share one allocation.
func (c *BoardCache) Lines(b *engine.Board, ms *Marks) []string {
	_, h := c.Tier.BoardSize(c.N)
	buf := make([]byte, 0, c.Size(b, ms))
	ends := make([]int, 0, h)
	for i := range h {
		buf = c.AppendLine(buf, i, b, ms)
		ends = append(ends, len(buf))
	}
	all := BytesString(buf)
	out := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	return out
}

// Size is how many bytes the lines of board b take.
func (c *BoardCache) Size(b *engine.Board, ms *Marks) int {
	n, t := c.N, c.Tier
	size := (n*t.GY + t.GY) * len(c.gapRow)
	for r := range n {
		for col := range n {
			for _, l := range c.Tile(b.At(r, col), ms.at(r, col)) {
				size += len(l)
			}
		}
	}
	return size + n*t.H*(n+1)*len(c.gapCols)
}

// AppendLine appends line i of board b (see lines) to dst.
func (c *BoardCache) AppendLine(dst []byte, i int, b *engine.Board, ms *Marks) []byte {
	t := c.Tier
	r, k := i/(t.GY+t.H), i%(t.GY+t.H)
	if r == c.N || k < t.GY {
		return append(dst, c.gapRow...)
	}
	for col := range c.N {
		dst = append(dst, c.gapCols...)
		dst = append(dst, c.Tile(b.At(r, col), ms.at(r, col))[k-t.GY]...)
	}
	return append(dst, c.gapCols...)
}

// Overlay replaces the middle of a board with the box's lines, centred in
// a band of board colour across the whole width. The band is widened to
// whole tile rows, so that no tile shows cut in half above or below it.
func (c *BoardCache) Overlay(board []string, boxLines []string) []string {
	bw, _ := c.Tier.BoardSize(c.N)
	top := max(0, (len(board)-len(boxLines))/2)
	end := min(len(board), top+len(boxLines))
	isGap := func(i int) bool { return i%(c.Tier.H+c.Tier.GY) < c.Tier.GY }
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
