package draw

import (
	"flag"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ssh2048/ssh2048/engine"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/draw/ -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, path, got, want)
	}
}

// tileRow draws tiles of exps side by side in tier tr, a gap apart, as
// text without its escape codes: what the block digits look like.
func tileRow(s *Styles, tr Tier, exps []uint8, mk Mark) string {
	tiles := make([][]string, len(exps))
	for i, e := range exps {
		tiles[i] = s.TileLines(e, mk, tr.W, tr.H)
	}
	var b strings.Builder
	for r := range tr.H {
		var line strings.Builder
		for _, tl := range tiles {
			line.WriteString("  " + ansi.Strip(tl[r]))
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// TestGoldenDigits: the block digits at the three tile sizes that show
// each of their sizes, in colour and without (boxed); values too long for
// any size fall back to a line of text. The smallest tiers never show
// them (TestPickDigits).
func TestGoldenDigits(t *testing.T) {
	exps := []uint8{1, 3, 7, 11, 14, 17, 20}
	for _, tr := range []Tier{Tiers[3], Tiers[4], Tiers[5]} {
		name := fmt.Sprintf("digits-%dx%d", tr.W, tr.H)
		t.Run(name, func(t *testing.T) {
			colour, boxed := NewStyles(ThemeDefault, colorprofile.TrueColor, true), NewStyles(ThemeDefault, colorprofile.ASCII, true)
			got := "colour:\n" + tileRow(&colour, tr, exps, MarkNone) + "\nno colour:\n" + tileRow(&boxed, tr, exps, MarkNone)
			golden(t, name, got)
		})
	}
}

// colourName is how a golden file writes a colour: #rrggbb in true
// colour, the index in 256 colours, the name in 16.
func colourName(c color.Color) string {
	switch c := c.(type) {
	case ansi.BasicColor:
		return [...]string{"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
			"bright-black", "bright-red", "bright-green", "bright-yellow", "bright-blue", "bright-magenta", "bright-cyan", "bright-white"}[c]
	case ansi.IndexedColor:
		return strconv.Itoa(int(c))
	case nil:
		return "-"
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// TestGoldenThemes: each theme's colours in each colour profile (a tile's
// background/text), and its tiles at 16×7 in colour, new and merged
// marks included, as the terminal gets them (escape codes shown as ␛).
func TestGoldenThemes(t *testing.T) {
	for _, th := range Themes() {
		t.Run(th.String(), func(t *testing.T) {
			var b strings.Builder
			profiles := []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI}
			fmt.Fprintf(&b, "%-8s %-17s %-9s %s\n", "tile", "true colour", "256", "16")
			styles := make([]Styles, len(profiles))
			for i, p := range profiles {
				styles[i] = NewStyles(th, p, true)
			}
			row := func(label string, st func(s *Styles) (bg, fg color.Color)) {
				fmt.Fprintf(&b, "%-8s", label)
				for i := range profiles {
					bg, fg := st(&styles[i])
					fmt.Fprintf(&b, " %-*s", []int{17, 9, 0}[i], colourName(bg)+"/"+colourName(fg))
				}
				b.WriteString("\n")
			}
			row("board", func(s *Styles) (color.Color, color.Color) { return s.Board.GetBackground(), nil })
			for exp := range len(styles[0].Tiles) {
				label := "empty"
				if exp > 0 {
					label = strconv.Itoa(engine.Value(uint8(exp)))
				}
				row(label, func(s *Styles) (color.Color, color.Color) {
					st := s.Tile(uint8(exp))
					return st.GetBackground(), st.GetForeground()
				})
			}
			b.WriteString("\n")
			tr := Tiers[3]
			for _, mk := range []Mark{MarkNone, MarkNew, MarkMerged} {
				for _, exp := range []uint8{1, 11} {
					for _, l := range styles[0].TileLines(exp, mk, tr.W, tr.H) {
						b.WriteString(strings.ReplaceAll(l, "\x1b", "␛") + "\n")
					}
				}
			}
			golden(t, "theme-"+th.String(), b.String())
		})
	}
}

// TestPickDigits: block digits only on tiles of seven rows and more, the
// largest size the label fits with a cell to spare around it.
func TestPickDigits(t *testing.T) {
	for _, tt := range []struct {
		label               string
		width, height, rows int
		want                DigitSize
	}{
		{"2", 6, 1, 3, DigitsText},  // the smallest tiers: never
		{"2", 4, 1, 1, DigitsText},  //
		{"2", 10, 3, 5, DigitsText}, // 12×5: not either
		{"131072", 14, 5, 7, DigitsSmall},
		{"1048576", 12, 5, 7, DigitsText}, // too wide even small (boxed 16×7)
		{"128", 14, 5, 7, DigitsBlock},    // 16×7
		{"2048", 14, 5, 7, DigitsSmall},   // smaller, as the original draws long values
		{"512", 26, 11, 13, DigitsLarge},  // 28×13
		{"2048", 26, 11, 13, DigitsBlock},
		{"2x", 26, 11, 13, DigitsText}, // no glyph
	} {
		if got := PickDigits(tt.label, tt.width, tt.height, tt.rows); got != tt.want {
			t.Errorf("PickDigits(%q, %d, %d, %d) = %d, want %d", tt.label, tt.width, tt.height, tt.rows, got, tt.want)
		}
	}
}

func TestFigureWidth(t *testing.T) {
	for _, f := range []Figure{Number("", 0), Number("", 7), Number("#", 12), Number("+", 2048), Number("", -31), Number("", 1234567), {Text: "–"}, {Text: "guest"}} {
		if got, want := f.Width(), len([]rune(f.String())); got != want {
			t.Errorf("%q: Width %d, want %d", f.String(), got, want)
		}
	}
}
