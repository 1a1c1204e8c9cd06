// Temporary: the race screens' names for tui/event's messages, until they
// move to a package of their own.

package tui

import "github.com/ssh2048/ssh2048/tui/event"

type (
	WakeMsg      = event.WakeMsg
	Waker        = event.Waker
	TakenOverMsg = event.TakenOverMsg
	ShutdownMsg  = event.ShutdownMsg
	EndMsg       = event.EndMsg
)
