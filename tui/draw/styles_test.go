package draw

import (
	"fmt"
	"image/color"
	"strconv"
	"testing"

	"charm.land/lipgloss/v2"
	colorful "github.com/lucasb-eyer/go-colorful"
)

// xterm256 is the colour an xterm palette index shows (16–255).
func xterm256(t *testing.T, index string) colorful.Color {
	t.Helper()
	i, err := strconv.Atoi(index)
	if err != nil || i < 16 || i > 255 {
		t.Fatalf("256-colour index %q", index)
	}
	if i >= 232 {
		v := float64(8+10*(i-232)) / 255
		return colorful.Color{R: v, G: v, B: v}
	}
	i -= 16
	level := [6]float64{0, 95, 135, 175, 215, 255}
	return colorful.Color{R: level[i/36] / 255, G: level[i/6%6] / 255, B: level[i%6] / 255}
}

// TestPalette256: the 256-colour tiles keep the original's hues (warm:
// no greys but the darkest tile), grow more colourful with the value
// within each run (2–64, 128–2048), keep neighbours apart, and the board
// is the original's beige-brown, darker than the empty cells.
func TestPalette256(t *testing.T) {
	board, empty := xterm256(t, board256), xterm256(t, palette[0].bg256)
	for _, c := range []struct {
		name string
		c    colorful.Color
	}{{"board", board}, {"empty cell", empty}} {
		if _, chroma, hue := c.c.OkLch(); chroma < 0.03 || hue < 20 || hue > 110 {
			t.Errorf("the %s is %s: chroma %.3f, hue %.0f; want a warm colour, not a grey", c.name, c.c.Hex(), chroma, hue)
		}
	}
	if lb, _, _ := board.OkLch(); lb >= func() float64 { l, _, _ := empty.OkLch(); return l }() {
		t.Errorf("the board %s is not darker than the empty cells %s", board.Hex(), empty.Hex())
	}
	for _, run := range [][2]int{{1, 6}, {7, 11}} { // 2–64, 128–2048
		prev := -1.0
		for exp := run[0]; exp <= run[1]; exp++ {
			c := xterm256(t, palette[exp].bg256)
			orig, _ := colorful.Hex(palette[exp].bg)
			_, chroma, hue := c.OkLch()
			if chroma <= prev {
				t.Errorf("%d (%s) is not more colourful than %d: chroma %.3f after %.3f", 1<<exp, c.Hex(), 1<<(exp-1), chroma, prev)
			}
			if hue < 20 || hue > 110 {
				t.Errorf("%d (%s) is not a warm colour: hue %.0f", 1<<exp, c.Hex(), hue)
			}
			if d := orig.DistanceCIEDE2000(c); d > 0.14 {
				t.Errorf("%d (%s) is far from the original %s: ΔE %.3f", 1<<exp, c.Hex(), orig.Hex(), d)
			}
			prev = chroma
		}
	}
	gold1024, gold2048 := xterm256(t, palette[10].bg256), xterm256(t, palette[11].bg256)
	if l1024, _, _ := gold1024.OkLch(); func() bool { l, _, _ := gold2048.OkLch(); return l < l1024 }() {
		t.Errorf("2048 (%s) is darker than 1024 (%s)", gold2048.Hex(), gold1024.Hex())
	}
	for i := 1; i < len(palette); i++ {
		a, b := xterm256(t, palette[i-1].bg256), xterm256(t, palette[i].bg256)
		if d := a.DistanceCIEDE2000(b); d < 0.05 {
			t.Errorf("tiles %d and %d look alike: %s and %s, ΔE %.3f", i-1, i, a.Hex(), b.Hex(), d)
		}
	}
}

// hue16 is the hue of one of the 16 ANSI colours, bright or not: 0 black
// … 7 white.
func hue16(t *testing.T, c color.Color) int {
	t.Helper()
	for i, base := range []color.Color{lipgloss.Black, lipgloss.Red, lipgloss.Green, lipgloss.Yellow,
		lipgloss.Blue, lipgloss.Magenta, lipgloss.Cyan, lipgloss.White} {
		if c == base {
			return i
		}
	}
	for i, bright := range []color.Color{lipgloss.BrightBlack, lipgloss.BrightRed, lipgloss.BrightGreen, lipgloss.BrightYellow,
		lipgloss.BrightBlue, lipgloss.BrightMagenta, lipgloss.BrightCyan, lipgloss.BrightWhite} {
		if c == bright {
			return i
		}
	}
	t.Fatalf("%v is not one of the 16 ANSI colours", c)
	return -1
}

// TestPalette16: terminals' 16 colours differ from one to the next (2 on
// white and 4 on bright white looked alike on common ones), so every
// value's background is of another hue than its neighbours', and its text
// of another hue than its background.
func TestPalette16(t *testing.T) {
	for i := range palette {
		bg, fg := hue16(t, palette[i].bg16), hue16(t, palette[i].fg16)
		if bg == fg {
			t.Errorf("tile %d: text and background of one hue (%d)", i, bg)
		}
		if i == 0 {
			continue
		}
		if prev := hue16(t, palette[i-1].bg16); prev == bg {
			name := func(e int) string {
				if e == 0 {
					return "empty"
				}
				return fmt.Sprint(1 << e)
			}
			t.Errorf("%s and %s have backgrounds of one hue (%d)", name(i-1), name(i), bg)
		}
	}
}
