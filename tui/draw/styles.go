package draw

import (
	"image/color"
	"sync"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
)

// Styles is every colour and text attribute the TUI uses, in one place.
// Build it with DefaultStyles for a session's colour profile and
// terminal background.
type Styles struct {
	// Theme is the tile colours the styles were made in.
	Theme Theme
	// Colour is false when the profile shows no colour (Ascii, NoTTY): tiles
	// are then drawn with boxes and brackets instead of backgrounds.
	Colour bool

	Board   lipgloss.Style   // the gaps between tiles
	Empty   lipgloss.Style   // an empty cell
	Tiles   []lipgloss.Style // indexed by exponent; the last one serves every larger tile
	Title   lipgloss.Style   // "2048"
	Label   lipgloss.Style   // "Score", "Best", … in the header
	Value   lipgloss.Style   // the numbers in the header
	Gain    lipgloss.Style   // "+32"
	Dim     lipgloss.Style   // secondary text
	Error   lipgloss.Style   // a failed store call
	Dialog  lipgloss.Style   // the box of the win, game-over and confirm dialogs
	Heading lipgloss.Style   // the first line of a dialog or screen
	Me      lipgloss.Style   // the player's own leaderboard row
	// Selected is the row picked in a list (the leaderboard's ↑↓).
	Selected lipgloss.Style
	Help     help.Styles
}

// palette is the original game's tile colours (gabrielecirulli/2048,
// style/main.scss), and their stand-ins where the terminal has fewer.
//
// 256 colours: the nearest palette colours to the beige tiles and the
// board are greys, which makes the board look grey and 2 and 4 alike; the
// ones below keep the original's hues (beige-brown board, cream and
// beige small tiles, orange to red, then gold), with colourfulness that
// grows with the value within each run (2–64 and 128–2048), as the
// original's does, and 2048 the brightest gold (TestPalette256).
//
// 16 colours: terminals' palettes differ, so hues are picked, not shades:
// each value's background is of another hue (black, red, green, yellow,
// blue, magenta, cyan, white) than its neighbours', bright or not, so
// that 2 and 4, or any tiles that merge into each other, never look
// alike on any palette (TestPalette16).
var palette = []tileColour{
	{"#cdc1b4", "#776e65", "180", "241", lipgloss.Black, lipgloss.White},         // empty
	{"#eee4da", "#776e65", "230", "241", lipgloss.White, lipgloss.Black},         // 2
	{"#ede0c8", "#776e65", "223", "241", lipgloss.Yellow, lipgloss.Black},        // 4
	{"#f2b179", "#f9f6f2", "215", "231", lipgloss.BrightRed, lipgloss.Black},     // 8
	{"#f59563", "#f9f6f2", "209", "231", lipgloss.Magenta, lipgloss.BrightWhite}, // 16
	{"#f67c5f", "#f9f6f2", "203", "231", lipgloss.Red, lipgloss.BrightWhite},     // 32
	{"#f65e3b", "#f9f6f2", "202", "231", lipgloss.BrightMagenta, lipgloss.Black}, // 64
	{"#edcf72", "#f9f6f2", "222", "231", lipgloss.BrightGreen, lipgloss.Black},   // 128
	{"#edcc61", "#f9f6f2", "221", "231", lipgloss.BrightCyan, lipgloss.Black},    // 256
	{"#edc850", "#f9f6f2", "178", "231", lipgloss.Green, lipgloss.BrightWhite},   // 512
	{"#edc53f", "#f9f6f2", "214", "231", lipgloss.Cyan, lipgloss.BrightWhite},    // 1024
	{"#edc22e", "#f9f6f2", "220", "231", lipgloss.BrightYellow, lipgloss.Black},  // 2048
	{"#3c3a32", "#f9f6f2", "237", "231", lipgloss.Blue, lipgloss.BrightWhite},    // 4096 and above
}

// board256 is the board's stand-in in 256 colours: the original's
// beige-brown, darker than the empty cells (180), not a grey.
const board256 = "137"

// Board and header colours of the original game.
const (
	boardHex = "#bbada0"
	titleHex = "#edc22e"
	gainHex  = "#f67c5f"
)

// DefaultStyles returns the styles for a colour profile in the default
// theme (NewStyles).
func DefaultStyles(p colorprofile.Profile, darkBackground bool) Styles {
	return NewStyles(ThemeDefault, p, darkBackground)
}

// NewStyles returns the styles of theme th for a colour profile: the
// theme's palette in true colour and 256 colours, hand-picked ANSI
// colours in 16, and text attributes only (bold, reverse) when there is
// no colour. The board brings its own background; the text around it
// follows the terminal's: the original page's brown on light backgrounds,
// the 2048 tile's gold on dark ones.
func NewStyles(th Theme, p colorprofile.Profile, darkBackground bool) Styles {
	pick := lipgloss.Complete(p)
	ld := lipgloss.LightDark(darkBackground)
	// hex is a colour for the header and dialogs, where the nearest 256
	// colour is close enough.
	hex := func(h string, c16 color.Color) color.Color {
		return pick(c16, lipgloss.Color(h), lipgloss.Color(h))
	}
	colours := themes[th]
	s := Styles{Theme: th, Colour: p >= colorprofile.ANSI}
	s.Tiles = make([]lipgloss.Style, len(colours.tiles))
	for i, c := range colours.tiles {
		st := lipgloss.NewStyle().Bold(i > 0)
		if s.Colour {
			st = st.Background(pick(c.bg16, c.colour256(c.bg256, c.bg), lipgloss.Color(c.bg))).
				Foreground(pick(c.fg16, c.colour256(c.fg256, c.fg), lipgloss.Color(c.fg)))
		}
		s.Tiles[i] = st
	}
	s.Empty = s.Tiles[0].Bold(false)
	s.Board = lipgloss.NewStyle()
	s.Title = lipgloss.NewStyle().Bold(true)
	s.Label = lipgloss.NewStyle()
	s.Value = lipgloss.NewStyle().Bold(true)
	s.Gain = lipgloss.NewStyle().Bold(true)
	s.Dim = lipgloss.NewStyle().Faint(true)
	s.Error = lipgloss.NewStyle().Bold(true)
	s.Heading = lipgloss.NewStyle().Bold(true)
	s.Me = lipgloss.NewStyle().Bold(true).Reverse(!s.Colour)
	// Reverse where there is colour; where there is none, Me is in
	// reverse already, so the pick is underlined.
	s.Selected = lipgloss.NewStyle().Reverse(s.Colour).Underline(!s.Colour)
	s.Dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 2)
	if s.Colour {
		b := colours.board
		s.Board = s.Board.Background(pick(b.bg16, b.colour256(b.bg256, b.bg), lipgloss.Color(b.bg)))
		s.Title = s.Title.Foreground(ld(hex("#776e65", lipgloss.Black), hex(titleHex, lipgloss.BrightYellow)))
		s.Label = s.Label.Foreground(ld(hex("#8f7a66", lipgloss.BrightBlack), hex("#a39489", lipgloss.White)))
		s.Gain = s.Gain.Foreground(hex(gainHex, lipgloss.BrightRed))
		s.Error = s.Error.Foreground(hex("#f65e3b", lipgloss.BrightRed))
		s.Me = s.Me.Foreground(hex(gainHex, lipgloss.BrightRed))
		s.Dialog = s.Dialog.BorderForeground(ld(hex("#8f7a66", lipgloss.BrightBlack), hex(titleHex, lipgloss.BrightYellow)))
		if th == ThemeHighContrast {
			// The header's labels in the terminal's own strongest ink.
			s.Label = s.Label.Foreground(ld(lipgloss.Black, lipgloss.BrightWhite))
		}
	}
	if th == ThemeHighContrast {
		s.Dim = lipgloss.NewStyle() // faint text is what the theme is for not having
	}
	s.Help = help.Styles{
		ShortKey:       lipgloss.NewStyle().Bold(true),
		ShortDesc:      s.Dim,
		ShortSeparator: s.Dim,
		Ellipsis:       s.Dim,
		FullKey:        lipgloss.NewStyle().Bold(true),
		FullDesc:       lipgloss.NewStyle(),
		FullSeparator:  s.Dim,
	}
	return s
}

// SharedStyles returns DefaultStyles(p, darkBackground), made once for
// every session that draws with them (ThemedStyles).
func SharedStyles(p colorprofile.Profile, darkBackground bool) *Styles {
	return ThemedStyles(ThemeDefault, p, darkBackground)
}

// ThemedStyles returns NewStyles(th, p, darkBackground), made once for
// every session that draws with them: a Styles is large, and a copy in
// each session would grow the server's memory with every session
// connected (the commit that brought this in has the figures). Sessions
// only read them.
func ThemedStyles(th Theme, p colorprofile.Profile, darkBackground bool) *Styles {
	if int(th) >= len(themes) {
		th = ThemeDefault
	}
	styleCache.Lock()
	defer styleCache.Unlock()
	key := styleKey{th, p, darkBackground}
	s, ok := styleCache.m[key]
	if !ok {
		s = newStyles(th, p, darkBackground)
		styleCache.m[key] = s
	}
	return s
}

// newStyles is DefaultStyles, made on the heap. It is not inlined: a
// function's frame holds room for every value it makes, and with a
// Styles in it SharedStyles took a large frame of stack every time it was
// called, enough to grow the stack of a session's long-lived goroutine
// for good (a race's handler made its model there, and held a larger
// stack than a game screen's handler for the whole race; the commit that
// brought this in has the figures).
//
//go:noinline
func newStyles(th Theme, p colorprofile.Profile, darkBackground bool) *Styles {
	s := NewStyles(th, p, darkBackground)
	return &s
}

type styleKey struct {
	th   Theme
	p    colorprofile.Profile
	dark bool
}

var styleCache = struct {
	sync.Mutex
	m map[styleKey]*Styles
}{m: make(map[styleKey]*Styles)}

// Tile returns the style of a tile by exponent (0 = empty).
func (s *Styles) Tile(exp uint8) lipgloss.Style {
	if exp == 0 {
		return s.Empty
	}
	return s.Tiles[min(int(exp), len(s.Tiles)-1)]
}
