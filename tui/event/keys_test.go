package event

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestNameOf: a key's name is the one key.Matches compares, the arrows'
// included, which NameOf names without asking the key.
func TestNameOf(t *testing.T) {
	for _, k := range []tea.KeyPressMsg{
		{Code: tea.KeyUp}, {Code: tea.KeyDown}, {Code: tea.KeyLeft}, {Code: tea.KeyRight},
		{Code: tea.KeyUp, Mod: tea.ModShift}, {Code: tea.KeyLeft, Mod: tea.ModCtrl},
		{Code: 'w', Text: "w"}, {Code: 'q', Text: "q"}, {Code: tea.KeyEnter}, {Code: tea.KeyEscape},
		{Code: 'c', Mod: tea.ModCtrl},
	} {
		if got, want := string(NameOf(k)), k.String(); got != want {
			t.Errorf("NameOf(%#v) = %q, want %q", k, got, want)
		}
	}
}
