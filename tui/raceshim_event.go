// Temporary: the race screens' names for tui/event's messages, until they
// move to a package of their own.

package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"fmt"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/event"
)

type (
	WakeMsg      = event.WakeMsg
	Waker        = event.Waker
	TakenOverMsg = event.TakenOverMsg
	ShutdownMsg  = event.ShutdownMsg
	EndMsg       = event.EndMsg
)

// nameOf, keyDirection and capitalise are the race screens' names for
// event's and draw's, until they move.
func nameOf(k tea.KeyPressMsg) event.KeyName { return event.NameOf(k) }

func keyDirection[K fmt.Stringer](k K, up, down, left, right key.Binding) (engine.Direction, bool) {
	return event.KeyDirection(k, up, down, left, right)
}

func capitalise(s string) string { return draw.Capitalise(s) }
