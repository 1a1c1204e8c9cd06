package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"fmt"
	"github.com/ssh2048/ssh2048/engine"
)

// keyName is a key press's name, as key.Matches compares it, worked out
// once a key: key.Matches works it out again on every call, an allocation
// each for the arrows and other keys without text, a dozen a move on the
// game screen.
type keyName string

func (k keyName) String() string { return string(k) }

func nameOf(k tea.KeyPressMsg) keyName {
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
	return keyName(k.String())
}

// keyDirection is the move a key asks for with the screen's four move
// bindings; false for any other key.
func keyDirection[K fmt.Stringer](k K, up, down, left, right key.Binding) (engine.Direction, bool) {
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
