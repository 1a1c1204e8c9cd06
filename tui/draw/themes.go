package draw

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Theme is a set of tile colours a player picks (the `settings` command,
// SSH2048_THEME; store.Settings names the same four).
type Theme uint8

const (
	ThemeDefault      Theme = iota // the original game's colours
	ThemeHighContrast              // light and dark tiles in turn, text at the strongest contrast
	ThemeColourBlind               // hues told apart with any colour vision, neighbours by lightness too
	ThemeLight                     // pale tiles and board for a light terminal, dark text on all
)

var themeNames = [...]string{"default", "high-contrast", "colour-blind", "light"}

// Themes are every theme, in the order they are listed.
func Themes() []Theme {
	out := make([]Theme, len(themeNames))
	for i := range out {
		out[i] = Theme(i)
	}
	return out
}

func (t Theme) String() string {
	if int(t) < len(themeNames) {
		return themeNames[t]
	}
	return "default"
}

// ThemeNamed is the theme of a name, matched without regard to case.
func ThemeNamed(name string) (Theme, bool) {
	for i, n := range themeNames {
		if strings.EqualFold(n, name) {
			return Theme(i), true
		}
	}
	return ThemeDefault, false
}

// tileColour is how a tile is coloured in each colour profile.
type tileColour struct {
	bg, fg       string      // true colour
	bg256, fg256 string      // xterm 256-colour indexes; "" for the nearest to the true colour
	bg16, fg16   color.Color // 16 colours
}

// colour256 is the 256-colour index, or the nearest to hex.
func (tileColour) colour256(index, hex string) color.Color {
	if index != "" {
		return lipgloss.Color(index)
	}
	return ansi.Convert256(lipgloss.Color(hex))
}

// themeColours are a theme's tiles (indexed by exponent, 0 the empty
// cell; the last serves every larger tile) and its board (bg only).
type themeColours struct {
	tiles []tileColour
	board tileColour
}

// themes are the themes' colours, by Theme.
//
// The high-contrast and colour-blind themes alternate light tiles with
// black text and dark tiles with white text, so that a tile and the one
// it merges into (v and 2v) differ in lightness, which every kind of
// colour vision sees, as well as in hue; their text is at WCAG's AAA
// contrast or near it. The colour-blind theme takes its hues from the
// Okabe–Ito palette (blue, sky blue, orange, yellow, vermillion, bluish
// green, reddish purple), told apart with the common colour-vision
// deficiencies; the high-contrast theme's are picked from xterm's colour
// cube, so that 256 colours show them exactly. The light theme is pastel
// tiles of hues far apart, on a pale board, every label in dark ink. In
// 16 colours the two alternating themes share one palette: bright
// colours (light on most terminals) and normal ones (dark) in turn. The
// light theme keeps the default's 16 colours. TestThemesKeepMergesApart
// checks each in every profile.
var themes = [...]themeColours{
	ThemeDefault: {tiles: palette, board: tileColour{bg: boardHex, bg256: board256, bg16: lipgloss.BrightBlack}},
	ThemeHighContrast: {
		board: tileColour{bg: "#000000", bg256: "16", bg16: lipgloss.Black},
		tiles: alternating([]string{
			"#303030", // empty
			"#ffffff", "#0000af", "#ffff5f", "#af0000", "#87d7ff", "#005f00",
			"#afff5f", "#5f0087", "#ffafd7", "#00005f", "#ffaf00", "#005f5f",
		}),
	},
	ThemeColourBlind: {
		board: tileColour{bg: "#262626", bg16: lipgloss.Black},
		tiles: alternating([]string{
			"#4e4e4e", // empty
			"#eeeeee", "#0072b2", "#f0e442", "#a34400", "#87d7ff", "#00694d",
			"#e69f00", "#4b2a7a", "#e8a6c9", "#1d1d6b", "#fff3a0", "#585858",
		}),
	},
	ThemeLight: {
		board: tileColour{bg: "#cbc2b5", bg16: lipgloss.White},
		tiles: light([]string{
			"#d9d0c1", // empty
			"#ffffff", "#e3d3ad", "#fbd38d", "#f5a97f", "#f28b82", "#d98ce0",
			"#aecbfa", "#8ad4c5", "#ccff90", "#fff475", "#ffd54f", "#3c3a32",
		}),
	},
}

// alternating16 are the 16-colour tiles of the alternating themes: light
// (bright) and dark in turn, each hue unlike its neighbours'.
var alternating16 = []color.Color{
	lipgloss.BrightBlack, // empty
	lipgloss.BrightWhite, lipgloss.Blue, lipgloss.BrightYellow, lipgloss.Red, lipgloss.BrightCyan, lipgloss.Magenta,
	lipgloss.BrightGreen, lipgloss.Blue, lipgloss.White, lipgloss.Red, lipgloss.BrightYellow, lipgloss.Magenta,
}

// alternating colours bgs as the alternating themes do: the empty cell
// and every other tile from 4 on dark with white text, the tiles between
// light with black text.
func alternating(bgs []string) []tileColour {
	out := make([]tileColour, len(bgs))
	for i, bg := range bgs {
		dark := i%2 == 0
		c := tileColour{bg: bg, fg: "#000000", fg256: "16", bg16: alternating16[i], fg16: lipgloss.Black}
		if dark {
			c.fg, c.fg256, c.fg16 = "#ffffff", "231", lipgloss.BrightWhite
		}
		out[i] = c
	}
	return out
}

// light colours bgs as the light theme does: dark ink on every tile but
// the last, which is dark itself; 16 colours as the default theme's.
func light(bgs []string) []tileColour {
	out := make([]tileColour, len(bgs))
	for i, bg := range bgs {
		out[i] = tileColour{bg: bg, fg: "#3c3a32", bg16: palette[i].bg16, fg16: palette[i].fg16}
		if i == len(bgs)-1 {
			out[i].fg = "#ffffff"
		}
	}
	out[0].fg = "#776e65"
	return out
}
