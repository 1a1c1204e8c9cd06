package event

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
)

// KeyName is a key press's name, as key.Matches compares it, worked out
// once a key: key.Matches works it out again on every call, an allocation
// each for the arrows and other keys without text, a dozen a move on the
// game screen.
type KeyName string

func (k KeyName) String() string { return string(k) }

// NameOf is k's name, as key.Matches compares it.
func NameOf(k tea.KeyPressMsg) KeyName {
	if k.Mod == 0 && k.Text == "" {
		// The arrows, as Keystroke names them, without building the name.
		switch k.Code {
		case tea.KeyUp:
			return "up"
		case tea.KeyDown:
			return "down"
		case tea.KeyLeft:
			return "left"
		case tea.KeyRight:
			return "right"
		}
	}
	return KeyName(k.String())
}

// KeyDirection is the move a key asks for with the screen's four move
// bindings; false for any other key.
func KeyDirection[K fmt.Stringer](k K, up, down, left, right key.Binding) (engine.Direction, bool) {
	switch {
	case key.Matches(k, up):
		return engine.Up, true
	case key.Matches(k, down):
		return engine.Down, true
	case key.Matches(k, left):
		return engine.Left, true
	case key.Matches(k, right):
		return engine.Right, true
	}
	return 0, false
}

// MoveKeys are the keys that move the tiles, the same on every screen
// that plays: the game screen's and the race's.
func MoveKeys() (up, down, left, right key.Binding) {
	return key.NewBinding(key.WithKeys("up", "w", "k"), key.WithHelp("↑ w k", "up")),
		key.NewBinding(key.WithKeys("down", "s", "j"), key.WithHelp("↓ s j", "down")),
		key.NewBinding(key.WithKeys("left", "a", "h"), key.WithHelp("← a h", "left")),
		key.NewBinding(key.WithKeys("right", "d", "l"), key.WithHelp("→ d l", "right"))
}
