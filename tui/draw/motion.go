package draw

import (
	"slices"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
)

// Motion is one frame of a move in flight: Slide, every tile halfway
// along its path over the empty board; or Pop, the board after the move
// with the tiles its merges made one cell larger all round. Tiles are the
// cache's own (BoardCache.Tile), so motion draws them as the still board
// does.
type Motion struct {
	Paths []engine.Path
	Pop   bool
	After engine.Board // the board after the move, with its new tile
	Marks *Marks       // the move's marks, as the still board draws them
	Big   *BoardCache  // the cache of the popped tiles (PopCache)
}

// PopCache is the cache of c's tiles one cell larger all round, for the
// pop of a merge (see Motion).
func (c *BoardCache) PopCache() *BoardCache {
	t := c.Tier
	return SharedBoardCache(c.styles, Tier{W: t.W + 2, H: t.H + 2, GX: t.GX, GY: t.GY}, c.N)
}

// piece is a tile's line laid over a board line at column x, w cells.
type piece struct {
	x, w int
	s    string
}

// runs are the board's uniform runs of cells, styled, by length: the
// gaps' colour and an empty cell's, from which a motion line is put
// together without cutting styled text. Made once per cache, on first
// use: caches are shared by every session.
type runs struct {
	once       sync.Once
	gap, empty []string
}

func (c *BoardCache) runs() *runs {
	c.motion.once.Do(func() {
		bw, _ := c.Tier.BoardSize(c.N)
		r := &c.motion
		r.gap = make([]string, bw+1)
		for k := range r.gap {
			r.gap[k] = c.styles.Board.Render(strings.Repeat(" ", k))
		}
		if c.styles.Colour { // an empty cell is its colour alone
			empty := c.Tile(0, MarkNone)[0]
			r.empty = make([]string, c.Tier.W+1)
			for k := range r.empty {
				r.empty[k] = ansi.Cut(empty, 0, k)
			}
		}
	})
	return &c.motion
}

// AppendMotionLine appends line i of motion frame mo (see Motion) to dst.
func (c *BoardCache) AppendMotionLine(dst []byte, i int, mo *Motion) []byte {
	t := c.Tier
	var buf [2 * engine.MaxSize]piece
	pieces := buf[:0]
	at := func(row, col int) (x, y int) { return t.GX + col*(t.W+t.GX), t.GY + row*(t.H+t.GY) }
	if !mo.Pop {
		for _, p := range mo.Paths {
			x0, y0 := at(p.FromRow, p.FromCol)
			x1, y1 := at(p.ToRow, p.ToCol)
			x, y := (x0+x1)/2, (y0+y1)/2
			if i >= y && i < y+t.H {
				pieces = append(pieces, piece{x, t.W, c.Tile(p.Exp, MarkNone)[i-y]})
			}
		}
	} else {
		for r := range c.N {
			for col := range c.N {
				if e := mo.Marks.Merged.At(r, col); e != 0 {
					x, y := at(r, col)
					if i >= y-1 && i < y+t.H+1 {
						pieces = append(pieces, piece{x - 1, t.W + 2, mo.Big.Tile(e, MarkMerged)[i-y+1]})
					}
				}
			}
		}
	}
	slices.SortStableFunc(pieces, func(a, b piece) int { return a.x - b.x })
	board := &mo.After
	if !mo.Pop {
		board = nil // the slides go over the empty board
	}
	return c.appendLaid(dst, i, board, mo.Marks, pieces)
}

// appendLaid appends board line i (the board's tiles, or empty cells
// when board is nil) with pieces, sorted by x, laid over it: a piece
// that overlaps the one before it (two tiles on their way to one cell)
// loses its covered cells.
func (c *BoardCache) appendLaid(dst []byte, i int, board *engine.Board, ms *Marks, pieces []piece) []byte {
	t := c.Tier
	bw, _ := t.BoardSize(c.N)
	rs := c.runs()
	pos, next := 0, 0 // cells written; the next piece
	// background writes the board's cells [pos, end).
	background := func(end int) {
		for pos < end {
			r, k := i/(t.GY+t.H), i%(t.GY+t.H)
			if r == c.N || k < t.GY { // a row of gap
				dst = append(dst, rs.gap[end-pos]...)
				pos = end
				return
			}
			col, off := pos/(t.W+t.GX), pos%(t.W+t.GX)
			if off < t.GX || col == c.N { // a gap between cells
				stop := min(end, col*(t.W+t.GX)+t.GX)
				dst = append(dst, rs.gap[stop-pos]...)
				pos = stop
				continue
			}
			// A cell: whole, or a part of an empty one.
			from := off - t.GX
			stop := min(end, pos+t.W-from)
			var e uint8
			mk := MarkNone
			if board != nil {
				e, mk = board.At(r, col), ms.at(r, col)
			}
			line := c.Tile(e, mk)[k-t.GY]
			switch {
			case from == 0 && stop-pos == t.W:
				dst = append(dst, line...)
			case e == 0 && rs.empty != nil:
				dst = append(dst, rs.empty[stop-pos]...)
			default:
				dst = append(dst, ansi.Cut(line, from, from+stop-pos)...)
			}
			pos = stop
		}
	}
	for ; next < len(pieces); next++ {
		p := pieces[next]
		if p.x < pos { // covered in part by the piece before
			p.s, p.w, p.x = ansi.Cut(p.s, pos-p.x, p.w), p.w-(pos-p.x), pos
		}
		if p.x+p.w > bw {
			p.s, p.w = ansi.Cut(p.s, 0, bw-p.x), bw-p.x
		}
		if p.w <= 0 {
			continue
		}
		background(p.x)
		dst = append(dst, p.s...)
		pos = p.x + p.w
	}
	background(bw)
	return dst
}
