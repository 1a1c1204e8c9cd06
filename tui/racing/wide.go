package racing

import (
	"slices"

	"github.com/ssh2048/ssh2048/tui/draw"
)

// A large window (wideMinW×wideMinH and up) shows the race balanced:
// the player's board and the opponents' boards side by side, each sized
// to the window, the two as one block in the middle, under the header
// centred over the whole. The opponents are a grid of cells, each a
// line of name and figures over the opponent's board; the layout is the
// one that covers the most of the window, the player's board counting
// twice, and the opponents' tiles never larger than the player's.
// Smaller windows keep the narrow layout (the player's board, the
// opponents in a column of small boards, or a line of them).
const (
	wideMinW, wideMinH = 120, 40
	wideGap            = 4 // columns between the player's board and the grid
	cellGap            = 3 // columns between cells of the grid
	// cellMinW is the narrowest cell: a name, the score and the tile.
	cellMinW = 6 + 1 + 6 + 6 + len(" left")
)

// wideLayout is how a large window shows a race of n×n boards.
type wideLayout struct {
	own, opp     draw.Tier
	cols, rows   int // of the grid
	cellW, cellH int // a cell: name line and board
	w, h         int // the block: the player's board, the gap, the grid
}

// gridSize is the grid's width and height.
func (l wideLayout) gridSize() (w, h int) {
	return l.cols*l.cellW + (l.cols-1)*cellGap, l.rows*l.cellH + (l.rows - 1)
}

// oppTiers are the tile sizes an opponent's board may take, smallest
// first: the narrow layout's, then the player's own.
var oppTiers = append([]draw.Tier{miniTier}, draw.Tiers...)

// pickWide is the layout of a race of n×n boards with k opponents in a
// width×height window with chrome lines besides the block; not ok when
// the window is not large or nothing fits.
func pickWide(n, k, width, height, chrome int) (wideLayout, bool) {
	if width < wideMinW || height < wideMinH || k == 0 {
		return wideLayout{}, false
	}
	var best wideLayout
	bestScore := -1
	for oi, own := range draw.Tiers {
		ow, oh := own.BoardSize(n)
		for _, opp := range oppTiers[:oi+1] { // no larger than the player's
			bw, bh := opp.BoardSize(n)
			l := wideLayout{own: own, opp: opp, cellW: max(bw, cellMinW), cellH: 1 + bh}
			for cols := 1; cols <= k; cols++ {
				l.cols, l.rows = cols, (k+cols-1)/cols
				gw, gh := l.gridSize()
				l.w, l.h = ow+wideGap+gw, max(oh, gh)
				if l.w > width || l.h+chrome > height {
					continue
				}
				if score := 2*ow*oh + k*bw*bh; score > bestScore {
					best, bestScore = l, score
				}
			}
		}
	}
	return best, bestScore >= 0
}

// appendWide appends the block of a wide layout, its rows each after a
// line break: the player's board (lines of m.own, in motion when f is,
// or own's when not nil: the last frame's) and the opponents' grid, left
// columns from the window's edge. offs gets where the board's rows start
// and end.
func (m *Model) appendWide(buf []byte, l wideLayout, left int, f *raceFrame, opponents []int, own []string, offs []int) ([]byte, []int) {
	v := &f.view
	n := v.Size
	if m.mini == nil || m.mini.Tier != l.opp || m.mini.N != n {
		m.mini = draw.SharedBoardCache(m.styles, l.opp, n)
	}
	if len(m.opponents) < len(v.Racers) {
		m.opponents = slices.Grow(m.opponents, len(v.Racers))[:len(v.Racers)]
	}
	ow, oh := l.own.BoardSize(n)
	bw, _ := l.opp.BoardSize(n)
	_, gh := l.gridSize()
	ownTop, gridTop := (l.h-oh)/2, (l.h-gh)/2
	mo := m.motion.Motion(m.own, f.motion, f.board, &f.marks)
	nameW := l.cellW - (cellMinW - 6)
	for r := range l.h {
		buf = append(buf, '\n')
		buf = draw.AppendPad(buf, left)
		if k := r - ownTop; k >= 0 && k < oh {
			start := len(buf)
			switch {
			case own != nil:
				buf = append(buf, own[k]...)
			case mo != nil:
				buf = m.own.AppendMotionLine(buf, k, mo)
			default:
				buf = m.own.AppendLine(buf, k, &f.board, &f.marks)
			}
			offs = append(offs, start, len(buf))
		} else {
			buf = draw.AppendPad(buf, ow)
		}
		g := r - gridTop
		if g < 0 || g >= gh || g%(l.cellH+1) == l.cellH {
			continue // above, below or between the grid's rows
		}
		row, k := g/(l.cellH+1), g%(l.cellH+1)
		buf = draw.AppendPad(buf, wideGap)
		for c := range l.cols {
			j := row*l.cols + c
			if j >= len(opponents) {
				break
			}
			if c > 0 {
				buf = draw.AppendPad(buf, cellGap)
			}
			i := opponents[j]
			rc := &v.Racers[i]
			switch {
			case k == 0:
				buf = m.appendOpponentFigures(append(buf, m.opponents[i].padded(rc.Name, nameW)...), rc)
				buf = draw.AppendPad(buf, l.cellW-(nameW+1+6+6+len(opponentState(rc))))
			case rc.Board.Size() == n:
				buf = m.mini.AppendLine(buf, k-1, &rc.Board, &noMarks)
				buf = draw.AppendPad(buf, l.cellW-bw)
			default: // no game yet
				buf = draw.AppendPad(buf, l.cellW)
			}
		}
	}
	return buf, offs
}

// appendWideScreen appends the race screen in layout l: the header, the
// block, the status and the keys, each centred in the window. With keep,
// as appendRaceScreen's: the player's board is copied from the last such
// frame when it has not changed, and this frame's rows of it noted.
func (m *Model) appendWideScreen(dst []byte, f *raceFrame, keep bool, l wideLayout, header, status, help draw.Line, opponents []int) []byte {
	if m.own == nil || m.own.Tier != l.own || m.own.N != f.view.Size {
		m.own = draw.SharedBoardCache(m.styles, l.own, f.view.Size)
	}
	d := &m.ownDrawn
	var own []string
	if keep && f.motion.Frame == 0 && d.cache == m.own && d.board == f.board && d.marks == f.marks && len(d.lines) > 0 {
		own = d.lines
	}
	top := max(0, (m.height-l.h-3)/2)
	buf := slices.Grow(dst, top+m.width*(l.h+3))
	for range top {
		buf = append(buf, '\n')
	}
	buf = m.appendCentred(buf, header)
	var at [2 * 128]int // where the board's rows start and end in the frame
	buf, offs := m.appendWide(buf, l, max(0, (m.width-l.w)/2), f, opponents, own, at[:0])
	buf = m.appendFoot(buf, status, help)
	if keep {
		_, oh := l.own.BoardSize(f.view.Size)
		m.keepOwn(buf, offs, oh, f)
	}
	return buf
}
