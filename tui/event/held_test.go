package event

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestHeldRelease: Release hands the held messages over in order until
// stop, keeps the rest held, and survives an update that drops them all
// (a held q ending the session) or holds another.
func TestHeldRelease(t *testing.T) {
	key := func(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }
	tests := []struct {
		name       string
		held       []rune
		stopAfter  rune // stop reports true once this key is handed over
		dropAt     rune // update drops every held message at this key
		holdAt     rune // update holds a new key 'z' at this key
		wantHanded string
		wantLeft   string
	}{
		{name: "all", held: []rune("abc"), wantHanded: "abc"},
		{name: "stop", held: []rune("abc"), stopAfter: 'a', wantHanded: "a", wantLeft: "bc"},
		{name: "stop last", held: []rune("abc"), stopAfter: 'c', wantHanded: "abc"},
		{name: "drop first", held: []rune("qrs"), dropAt: 'q', stopAfter: 'q', wantHanded: "q"},
		{name: "drop last", held: []rune("abq"), dropAt: 'q', stopAfter: 'q', wantHanded: "abq"},
		{name: "drop without stop", held: []rune("aqb"), dropAt: 'q', wantHanded: "aq"},
		{name: "hold while released", held: []rune("ab"), holdAt: 'a', stopAfter: 'a', wantHanded: "a", wantLeft: "bz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Held
			for _, r := range tt.held {
				h.Hold(key(r))
			}
			var handed []rune
			stopped := false
			h.Release(func(msg tea.Msg) tea.Cmd {
				r := msg.(tea.KeyPressMsg).Code
				handed = append(handed, r)
				switch r {
				case tt.dropAt:
					h.Drop()
				case tt.holdAt:
					h.Hold(key('z'))
				}
				stopped = r == tt.stopAfter
				return nil
			}, func() bool { return stopped })
			if got := string(handed); got != tt.wantHanded {
				t.Errorf("handed %q, want %q", got, tt.wantHanded)
			}
			var left []rune
			for _, msg := range h.msgs {
				left = append(left, msg.(tea.KeyPressMsg).Code)
			}
			if got := string(left); got != tt.wantLeft {
				t.Errorf("left held %q, want %q", got, tt.wantLeft)
			}
			if h.Keys() != len(left) || h.Len() != len(left) {
				t.Errorf("Keys %d, Len %d, want %d", h.Keys(), h.Len(), len(left))
			}
		})
	}
}
