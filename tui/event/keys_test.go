package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/ssh2048/ssh2048/tui/event"
)

// TestNameOf: a key's name is the one key.Matches compares, the arrows'
// included, which nameOf names without asking the key.
func TestNameOf(t *testing.T) {
	for _, k := range []tea.KeyPressMsg{
		{Code: tea.KeyUp}, {Code: tea.KeyDown}, {Code: tea.KeyLeft}, {Code: tea.KeyRight},
		{Code: tea.KeyUp, Mod: tea.ModShift}, {Code: tea.KeyLeft, Mod: tea.ModCtrl},
		{Code: 'w', Text: "w"}, {Code: 'q', Text: "q"}, {Code: tea.KeyEnter}, {Code: tea.KeyEscape},
		{Code: 'c', Mod: tea.ModCtrl},
	} {
		if got, want := string(event.NameOf(k)), k.String(); got != want {
			t.Errorf("nameOf(%#v) = %q, want %q", k, got, want)
		}
	}
}
