package event

import (
	"sync"

	"github.com/ssh2048/ssh2048/game"
)

// Waker is a screen that waits for something outside itself: the game a
// spectator watches, the race a racer is in. A runner that already waits for many things at once
// for its session (the SSH server's loop: window changes, notices) asks
// it with Wake, and sends it a WakeMsg when news comes; the spectator then
// holds no goroutine of its own while it waits, which at hundreds of
// spectators is most of what one costs over a game screen. A model run
// without such a runner (tea.Program) waits in a tea.Cmd as usual:
// ViewOptions.Woken, Options.Woken and racing.Options.Woken say which it
// gets.
type Waker interface {
	// Wake returns news, closed when the screen has something new to
	// show (then send WakeMsg, and call Wake again once it is handled),
	// and moved, closed when what the screen waits on changed (call
	// Wake again). news is nil while there is nothing to wait for.
	Wake() (news, moved <-chan struct{})
}

// WakeMsg tells a Waker that its news came.
type WakeMsg struct{}

// WakeSlot is the watch a stack of screens waits on: set by the spectator
// on top from the model's goroutine, read by the runner's with Wake.
type WakeSlot struct {
	mu    sync.Mutex
	w     *game.Watch
	moved chan struct{}
}

func NewWakeSlot() *WakeSlot { return &WakeSlot{moved: make(chan struct{})} }

// Set makes w the watch waited on (nil: none).
func (ws *WakeSlot) Set(w *game.Watch) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.w == w {
		return
	}
	ws.w = w
	close(ws.moved)
	ws.moved = make(chan struct{})
}

func (ws *WakeSlot) Wake() (news, moved <-chan struct{}) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.w != nil {
		news = ws.w.Changed()
	}
	return news, ws.moved
}
