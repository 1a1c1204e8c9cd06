package racing

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/vt"

	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// coloured is which cells of a frame, drawn in a terminal, have a
// background colour: the boards' (tiles and the gaps between them).
func coloured(frame string, w, h int) [][]bool {
	term := vt.NewEmulator(w, h)
	term.Write([]byte(strings.ReplaceAll(frame, "\n", "\r\n")))
	out := make([][]bool, h)
	for y := range h {
		out[y] = make([]bool, w)
		for x := range w {
			if c := term.CellAt(x, y); c != nil && c.Style.Bg != nil {
				out[y][x] = true
			}
		}
	}
	return out
}

// TestRaceBalancedInLargeWindows: from 120×40 up the race is one block
// in the middle of the window, under a header centred over it: the
// player's board with the opponents' boards beside it (not above or
// below), each opponent's board larger than the narrow layout's column
// draws them (miniTier), and their names beside the board.
func TestRaceBalancedInLargeWindows(t *testing.T) {
	m, _ := runningRace(t, "ann", "bob", "cat", "dan")
	miniW, _ := miniTier.BoardSize(4)
	for _, size := range [][2]int{{120, 40}, {160, 50}, {200, 60}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			m.Update(tea.WindowSizeMsg{Width: w, Height: h})
			m.drawn = ""
			frame := m.View().Content
			plain := tuitest.Plain(frame)
			tuitest.AssertFits(t, plain, w, h)
			bg := coloured(frame, w, h)
			// The block: every coloured cell.
			left, right, top := w, -1, -1
			for y := range h {
				for x := range w {
					if bg[y][x] {
						left, right = min(left, x), max(right, x)
						if top < 0 {
							top = y
						}
					}
				}
			}
			if right < 0 {
				t.Fatalf("no board drawn:\n%s", plain)
			}
			if l, r := left, w-1-right; l-r > 2 || r-l > 2 {
				t.Errorf("the block spans columns %d–%d of %d: not in the middle", left, right, w)
			}
			lines := strings.Split(plain, "\n")
			for i, l := range lines {
				if strings.Contains(l, "Race 4×4") {
					text := strings.TrimSpace(l)
					first := strings.Index(l, text[:4])
					if d := 2*first + len([]rune(text)) - w; d > 3 || d < -3 {
						t.Errorf("the header %q is not centred over the window", text)
					}
					if i >= top {
						t.Errorf("the header (line %d) is not above the boards (from line %d)", i, top)
					}
				}
			}
			// The player's board is the coloured run from the block's left
			// edge on its first row; the opponents' boards lie right of it.
			var ownRight int
			ownRows, oppRows := [2]int{-1, -1}, [2]int{-1, -1}
			for y := range h {
				if bg[y][left] && ownRows[0] < 0 {
					ownRows[0] = y
					for ownRight = left; ownRight+1 < w && bg[y][ownRight+1]; ownRight++ {
					}
				}
				if bg[y][left] {
					ownRows[1] = y
				}
			}
			oppW := 0
			for y := range h {
				run := 0
				for x := ownRight + 1; x < w; x++ {
					if bg[y][x] {
						run++
						oppW = max(oppW, run)
						if oppRows[0] < 0 {
							oppRows[0] = y
						}
						oppRows[1] = y
					} else {
						run = 0
					}
				}
			}
			if oppRows[0] < 0 {
				t.Fatalf("no opponent's board right of the player's (columns %d–%d):\n%s", left, ownRight, plain)
			}
			overlap := min(ownRows[1], oppRows[1]) - max(ownRows[0], oppRows[0])
			if span := min(ownRows[1]-ownRows[0], oppRows[1]-oppRows[0]); overlap < span/2 {
				t.Errorf("the opponents (rows %v) are not beside the board (rows %v)", oppRows, ownRows)
			}
			if oppW <= miniW {
				t.Errorf("the opponents' boards are %d columns wide, no wider than the narrow column's %d", oppW, miniW)
			}
			for _, name := range []string{"bob", "cat", "dan"} {
				found := false
				for _, l := range lines {
					if i := strings.Index(l, name); i >= 0 && len([]rune(l[:i])) > ownRight {
						found = true
					}
				}
				if !found {
					t.Errorf("%s is not beside the board", name)
				}
			}
		})
	}
}
