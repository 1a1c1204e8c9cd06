package draw

import "strings"

// A tile with room shows its value in block digits, as the original game
// shows it large: each character a 3×5 dot glyph, drawn in one of three
// sizes by how much of the tile it may take. The largest size the label
// fits is used, so that, as in the original, long values are drawn
// smaller than short ones on the same board; a label no size fits is
// written on one line, as on the smallest tiles.
//
// The dots are square on a terminal whose cells are twice as tall as
// they are wide only in the largest size; the two smaller ones use
// quadrant and full blocks, whose dots are twice as tall as wide, which
// reads as a narrow typeface.

// glyphs are the dots of each character a label holds (Label: digits and
// the binary prefixes), five rows of three.
var glyphs = map[byte][5]string{
	'0': {"###", "# #", "# #", "# #", "###"},
	'1': {" # ", "## ", " # ", " # ", "###"},
	'2': {"###", "  #", "###", "#  ", "###"},
	'3': {"###", "  #", "###", "  #", "###"},
	'4': {"# #", "# #", "###", "  #", "  #"},
	'5': {"###", "#  ", "###", "  #", "###"},
	'6': {"###", "#  ", "###", "# #", "###"},
	'7': {"###", "  #", "  #", "  #", "  #"},
	'8': {"###", "# #", "###", "# #", "###"},
	'9': {"###", "# #", "###", "  #", "###"},
	'k': {"#  ", "# #", "## ", "# #", "# #"},
	'M': {"# #", "###", "###", "# #", "# #"},
	'G': {"###", "#  ", "# #", "# #", "###"},
	'T': {"###", " # ", " # ", " # ", " # "},
	'P': {"###", "# #", "###", "#  ", "#  "},
	'E': {"###", "#  ", "###", "#  ", "###"},
}

// DigitSize is how large a label's digits are drawn.
type DigitSize uint8

const (
	DigitsText  DigitSize = iota // one line of text
	DigitsSmall                  // quadrant blocks: 2 columns a character, 3 rows
	DigitsBlock                  // full blocks: 4 columns a character, 5 rows
	DigitsLarge                  // full blocks, each dot 2×2 cells: 8 columns a character, 10 rows
)

// bigDigitMinHeight is the smallest tile height that may show block
// digits: the three smallest tiers (one, three and five rows) never do.
// The two smallest have no room; the third is what a 3×3 board gets in
// an 80×24 window, which keeps the game's usual look (and the text
// that screen readers and tests read).
const bigDigitMinHeight = 7

// digitsBox is the width and height of label drawn in size ds.
func digitsBox(label string, ds DigitSize) (w, h int) {
	n := len(label)
	switch ds {
	case DigitsSmall:
		return 2 * n, 3
	case DigitsBlock:
		return 4*n - 1, 5
	case DigitsLarge:
		return 8*n - 2, 10
	}
	return n, 1
}

// PickDigits is the largest size label fits in width×height cells of a
// tile h rows high, with a cell to spare above and below; DigitsText when
// none does or the tile is of the smallest sizes.
func PickDigits(label string, width, height, tileH int) DigitSize {
	if tileH < bigDigitMinHeight {
		return DigitsText
	}
	for ds := DigitsLarge; ds > DigitsText; ds-- {
		if w, h := digitsBox(label, ds); w <= width && h <= height {
			if _, ok := glyphsOf(label); ok {
				return ds
			}
		}
	}
	return DigitsText
}

func glyphsOf(label string) ([][5]string, bool) {
	out := make([][5]string, len(label))
	for i := range len(label) {
		g, ok := glyphs[label[i]]
		if !ok {
			return nil, false
		}
		out[i] = g
	}
	return out, true
}

// quadrants are the block characters of a cell's four dots, by the bits
// top left 1, top right 2, bottom left 4, bottom right 8.
var quadrants = [16]string{" ", "▘", "▝", "▀", "▖", "▌", "▞", "▛", "▗", "▚", "▐", "▜", "▄", "▙", "▟", "█"}

// BigDigits draws label in size ds (not DigitsText): its rows, each
// digitsBox's width in cells.
func BigDigits(label string, ds DigitSize) []string {
	gs, ok := glyphsOf(label)
	if !ok || ds == DigitsText {
		return []string{label}
	}
	// The label's dots: a column between characters.
	dotW := 4*len(gs) - 1
	dot := func(x, y int) bool {
		if x < 0 || y < 0 || x >= dotW || y >= 5 || x%4 == 3 {
			return false
		}
		return gs[x/4][y][x%4] == '#'
	}
	w, h := digitsBox(label, ds)
	rows := make([]string, h)
	var sb strings.Builder
	for r := range h {
		sb.Reset()
		for c := range w {
			switch ds {
			case DigitsSmall:
				bits := 0
				for i, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
					if dot(2*c+d[0], 2*r+d[1]) {
						bits |= 1 << i
					}
				}
				sb.WriteString(quadrants[bits])
			case DigitsBlock:
				sb.WriteString(blockOr(dot(c, r)))
			case DigitsLarge:
				sb.WriteString(blockOr(dot(c/2, r/2)))
			}
		}
		rows[r] = sb.String()
	}
	return rows
}

func blockOr(on bool) string {
	if on {
		return "█"
	}
	return " "
}
