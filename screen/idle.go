package screen

import "time"

// A screen nobody types into for a while lets go of its last frame: the
// renderer's copy of the view's text, the largest part of an idle screen
// the server controls, and so much of what thousands of idle players
// cost (docs/performance.md has the figures). Its next frame is then
// drawn whole, a few kilobytes once, which an idle player does not
// notice.

// forgetAfter is how long a screen keeps its last frame without drawing
// another. A player who pauses longer than this gets a whole frame for
// the next key, many times the bytes of a move's frame, which happens
// seldom in play; it is short so that idle screens hold their frames
// briefly, and long enough that few pauses in play outlast it.
var forgetAfter = 10 * time.Second

// armForget (re)starts the countdown to forgetting the frame; s.mu is held.
func (s *Screen) armForget() {
	if s.forgetTimer == nil {
		s.forgetTimer = time.AfterFunc(forgetAfter, s.forgetIdle)
		return
	}
	s.forgetTimer.Reset(forgetAfter)
}

// forgetIdle drops the last frame if none has been drawn since the
// countdown began.
func (s *Screen) forgetIdle() {
	defer s.contain() // after the unlock below
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || s.stopped() || time.Since(s.lastFrame) < forgetAfter {
		return
	}
	s.r.Forget()
}
