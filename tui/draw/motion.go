package draw

import (
	"slices"

	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
)

// SlideFrames is how many frames show a move's tiles on their way, and
// MotionFrames how many a move's motion draws before its last frame (the
// board as it is drawn without motion): the slides, then the pop.
const (
	SlideFrames  = 2
	MotionFrames = SlideFrames + 1
)

// Motion is one frame of a move in flight: at Step 1 … SlideFrames every
// tile on its way along its path, a share Step/(SlideFrames+1) of it, over
// the empty board; at Step MotionFrames the board after the move with
// the tiles its merges made one cell larger all round (the pop). Tiles
// are the cache's own (BoardCache.Tile), so motion draws them as the
// still board does.
type Motion struct {
	Paths []engine.Path
	Step  int
	After engine.Board // the board after the move, with its new tile
	Marks *Marks       // the move's marks, as the still board draws them
	Pop   *BoardCache  // the cache of the popped tiles: the tier two cells wider and taller
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

// AppendMotionLine appends line i of motion frame mo (see Motion) to dst.
func (c *BoardCache) AppendMotionLine(dst []byte, i int, mo *Motion) []byte {
	t := c.Tier
	bw, _ := t.BoardSize(c.N)
	var bg []byte
	var pieces []piece
	at := func(row, col int) (x, y int) { return t.GX + col*(t.W+t.GX), t.GY + row*(t.H+t.GY) }
	if mo.Step <= SlideFrames {
		empty, _ := engine.NewBoard(c.N)
		bg = c.AppendLine(nil, i, &empty, &Marks{})
		for _, p := range mo.Paths {
			x0, y0 := at(p.FromRow, p.FromCol)
			x1, y1 := at(p.ToRow, p.ToCol)
			x := x0 + (x1-x0)*mo.Step/(SlideFrames+1)
			y := y0 + (y1-y0)*mo.Step/(SlideFrames+1)
			if i >= y && i < y+t.H {
				pieces = append(pieces, piece{x, t.W, c.Tile(p.Exp, MarkNone)[i-y]})
			}
		}
	} else {
		bg = c.AppendLine(nil, i, &mo.After, mo.Marks)
		for r := range c.N {
			for col := range c.N {
				e := mo.Marks.Merged.At(r, col)
				if e == 0 {
					continue
				}
				x, y := at(r, col)
				if i >= y-1 && i < y+t.H+1 {
					pieces = append(pieces, piece{x - 1, t.W + 2, mo.Pop.Tile(e, MarkMerged)[i-y+1]})
				}
			}
		}
	}
	if len(pieces) == 0 {
		return append(dst, bg...)
	}
	return appendLaid(dst, string(bg), bw, pieces)
}

// appendLaid appends line bg, bw cells wide, with pieces laid over it: a
// piece that overlaps the one before it (two tiles on their way to one
// cell) loses its covered cells.
func appendLaid(dst []byte, bg string, bw int, pieces []piece) []byte {
	slices.SortStableFunc(pieces, func(a, b piece) int { return a.x - b.x })
	pos := 0
	for _, p := range pieces {
		if p.x < pos {
			p.s, p.w, p.x = ansi.Cut(p.s, pos-p.x, p.w), p.w-(pos-p.x), pos
		}
		if p.x+p.w > bw {
			p.s, p.w = ansi.Cut(p.s, 0, bw-p.x), bw-p.x
		}
		if p.w <= 0 {
			continue
		}
		if p.x > pos {
			dst = append(dst, ansi.Cut(bg, pos, p.x)...)
		}
		dst = append(dst, p.s...)
		pos = p.x + p.w
	}
	if pos < bw {
		dst = append(dst, ansi.Cut(bg, pos, bw)...)
	}
	return dst
}
