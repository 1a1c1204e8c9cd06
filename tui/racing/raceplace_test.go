package racing

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

// visible is a frame as the terminal shows it: the renderer clears what
// a frame leaves out, so spaces ending a line and blank lines ending the
// frame are not there to see.
func visible(frame string) string {
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// The lobby is placed by hand (placeCentred) rather than by lipgloss;
// what the player sees must not move by a cell, odd gaps included.
func TestPlaceCentredAsLipgloss(t *testing.T) {
	styled := lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#ff0000"))
	tests := []struct {
		name          string
		lines         []string
		width, height int
	}{
		{"even gaps", []string{"abcd", "ab", ""}, 20, 10},
		{"odd gaps", []string{"abcde", "ab", "abc", "a"}, 21, 11},
		{"styled and wide runes", []string{styled.Render("Race · room x"), "› ann      1500", styled.Render("Starts in 3 s")}, 41, 24},
		{"block as wide as the window", []string{"abcdefgh", "abc"}, 8, 5},
		{"block wider and taller than the window", []string{"abcdefghij", "abcd", "ab", "a"}, 7, 2},
		{"one line", []string{"x"}, 80, 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := visible(lipgloss.Place(tt.width, tt.height, lipgloss.Center, lipgloss.Center, lipgloss.JoinVertical(lipgloss.Center, tt.lines...)))
			if got := visible(placeCentred(tt.lines, tt.width, tt.height)); got != want {
				t.Errorf("placeCentred:\n%q\nlipgloss:\n%q", got, want)
			}
		})
	}
}
