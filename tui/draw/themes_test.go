package draw

import (
	"image/color"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/charmbracelet/colorprofile"
	colorful "github.com/lucasb-eyer/go-colorful"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/store"
)

// rgb is the colour a terminal shows for c: true colour as it is, the
// 256 and 16 colours as xterm's default palette has them (terminals'
// 16 colours differ; xterm's stands for the common ones).
func rgb(t *testing.T, c color.Color) colorful.Color {
	t.Helper()
	cc, ok := colorful.MakeColor(c)
	if !ok {
		t.Fatalf("colour %v has no RGB", c)
	}
	return cc
}

// contrast is WCAG's contrast ratio of two colours.
func contrast(a, b colorful.Color) float64 {
	lum := func(c colorful.Color) float64 {
		r, g, b := c.LinearRgb()
		return 0.2126*r + 0.7152*g + 0.0722*b
	}
	x, y := lum(a), lum(b)
	return (max(x, y) + 0.05) / (min(x, y) + 0.05)
}

// What each theme promises, between a tile and the one it merges into
// (v and 2v: the pair a player must never take for two equal tiles):
// a colour difference (CIEDE2000, where 0.01 is about the least an eye
// sees), for the alternating themes a lightness difference (OkLab L,
// 0–1), which colour-blind eyes see as well as any; and the least
// contrast of a tile's text on it.
var themePromises = map[Theme]struct {
	minDE, minDL, minText float64
}{
	// The original's gold tiles from 128 up differ by little more than
	// an eye sees: what the other themes are for.
	ThemeDefault:      {minDE: 0.01},
	ThemeHighContrast: {minDE: 0.2, minDL: 0.25, minText: 7},
	ThemeColourBlind:  {minDE: 0.2, minDL: 0.15, minText: 4.5},
	ThemeLight:        {minDE: 0.08, minText: 4.5},
}

// TestThemesKeepMergesApart: in every theme and colour profile, each
// tile looks unlike the tile it merges into (and the empty cell unlike
// a 2), by what themePromises says of the theme; and its label is legible.
func TestThemesKeepMergesApart(t *testing.T) {
	for _, th := range Themes() {
		want, ok := themePromises[th]
		if !ok {
			t.Fatalf("theme %s promises nothing", th)
		}
		for _, p := range []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI} {
			s := NewStyles(th, p, true)
			bg := func(exp int) colorful.Color { return rgb(t, s.Tile(uint8(exp)).GetBackground()) }
			for exp := 1; exp < len(s.Tiles); exp++ {
				a, b := bg(exp-1), bg(exp)
				la, _, _ := a.OkLab()
				lb, _, _ := b.OkLab()
				de, dl := a.DistanceCIEDE2000(b), math.Abs(la-lb)
				name := func(e int) string {
					if e == 0 {
						return "empty"
					}
					return strconv.Itoa(engine.Value(uint8(e)))
				}
				minDE := want.minDE
				if th == ThemeDefault && p == colorprofile.ANSI {
					minDE = 0 // hues told apart instead: TestPalette16
				}
				if de < minDE || dl < want.minDL {
					t.Errorf("%s, %v: %s (%s) and %s (%s) too alike: ΔE %.3f (want ≥ %.2f), ΔL %.3f (want ≥ %.2f)",
						th, p, name(exp-1), a.Hex(), name(exp), b.Hex(), de, minDE, dl, want.minDL)
				}
				if p == colorprofile.ANSI {
					continue // 16 colours: text contrast depends on the terminal's palette
				}
				if c := contrast(b, rgb(t, s.Tile(uint8(exp)).GetForeground())); c < want.minText {
					t.Errorf("%s, %v: the label of %s has contrast %.1f, want ≥ %.1f", th, p, name(exp), c, want.minText)
				}
			}
		}
	}
}

// TestThemeNames: the themes are those the store's theme setting takes,
// in the same order, and are found by name.
func TestThemeNames(t *testing.T) {
	setting, ok := store.SettingOf(store.SettingTheme)
	if !ok {
		t.Fatal("the store has no theme setting")
	}
	var names []string
	for _, th := range Themes() {
		names = append(names, th.String())
		if got, ok := ThemeNamed(th.String()); !ok || got != th {
			t.Errorf("ThemeNamed(%q) = %v, %v", th.String(), got, ok)
		}
	}
	if !slices.Equal(names, setting.Values) {
		t.Errorf("themes %v, the store's theme setting takes %v", names, setting.Values)
	}
	if _, ok := ThemeNamed("purple"); ok {
		t.Error("ThemeNamed(purple) found a theme")
	}
}
