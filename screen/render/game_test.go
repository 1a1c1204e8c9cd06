package render

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/tui"
)

// TestRendererGameScreen draws the real game screen, move after move, in
// every profile, with and without background colour erase, at several
// sizes, and checks the virtual terminal against each frame: the frames
// the renderer is tuned for (tiles drawn a tile at a time, erased runs)
// must be exact.
func TestRendererGameScreen(t *testing.T) {
	keys := []tea.KeyPressMsg{{Code: tea.KeyUp}, {Code: tea.KeyDown}, {Code: tea.KeyLeft}, {Code: tea.KeyRight}}
	moves := 60
	if testing.Short() {
		moves = 20
	}
	for _, size := range [][2]int{{80, 24}, {60, 20}, {160, 60}} {
		for _, term := range testTerms {
			t.Run(fmt.Sprintf("%dx%d/%v", size[0], size[1], term), func(t *testing.T) {
				var seed uint64
				m := tui.New(tui.Options{
					Store:   tui.NewGuestStore(nil, func() uint64 { seed++; return seed }),
					Profile: term.profile,
				})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m.Update(tea.ColorProfileMsg{Profile: term.profile})
				c := newScreenCheck(t, term, size[0], size[1])
				c.frame(m.View().Content)
				rng := rand.New(rand.NewPCG(uint64(size[0]), uint64(term.profile)))
				for i := range moves {
					k := keys[rng.IntN(len(keys))]
					if i%50 == 49 {
						k = tea.KeyPressMsg{Code: 'n', Text: "n"} // a dialog over the board
					}
					m.Update(k)
					c.frame(m.View().Content)
				}
			})
		}
	}
}

// TestRendererErasesOnlyWithBCE: runs of coloured spaces are erased (ECH)
// where the terminal erases with the pen's colour, and written elsewhere.
func TestRendererErasesOnlyWithBCE(t *testing.T) {
	tile := func(bg string) string { return "\x1b[48;5;" + bg + "m" + strings.Repeat(" ", 12) + "\x1b[m" }
	for _, term := range []testTerm{{colorprofile.ANSI256, false, false}, {colorprofile.ANSI256, true, false}, {colorprofile.ANSI256, true, true}} {
		c := newScreenCheck(t, term, 20, 3)
		c.frame("x\n" + tile("209") + "\nx")
		out := c.frame("x\n" + tile("203") + "\nx")
		if got := bytes.Contains(out, []byte("X")); got != term.bce {
			t.Errorf("%v: ECH written: %v; output %q", term, got, out)
		}
	}
	for term, want := range map[string]bool{
		"xterm-256color": true, "xterm": true, "linux": true, "rxvt-unicode-256color": true,
		"tmux-256color": false, "screen-256color": false, "vt100": false, "dumb": false, "": false,
	} {
		if got := erasesWithBackground(term); got != want {
			t.Errorf("erasesWithBackground(%q) = %v, want %v", term, got, want)
		}
	}
}

// TestRendererTileAtOnce: a tile that changes is drawn as a block, with
// one pen change, not a pen change for each of its rows.
func TestRendererTileAtOnce(t *testing.T) {
	board := func(bg string) string {
		gap := "\x1b[48;5;248m  \x1b[m"
		row := func(text string) string {
			return gap + "\x1b[1;38;5;231;48;5;" + bg + "m" + text + "\x1b[m" + gap
		}
		return strings.Join([]string{row("        "), row("   16   "), row("        ")}, "\n")
	}
	for _, term := range testTerms {
		if term.profile < colorprofile.ANSI256 {
			continue
		}
		c := newScreenCheck(t, term, 12, 3)
		c.frame(board("209"))
		out := c.frame(board("203"))
		if n := bytes.Count(out, []byte("m")); n != 1 {
			t.Errorf("%v: %d SGR sequences for one tile: %q", term, n, out)
		}
	}
}
