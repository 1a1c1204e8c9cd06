package screen

import "time"

// A screen nobody types into for a while lets go of its last frame: the
// renderer's copy of the view's text (about 5 KB at 80×24, the largest
// part of an idle screen the server controls: 20 MB at 4,000 idle
// players). Its next frame is then drawn whole, a few kilobytes once,
// which an idle player does not notice.

// forgetAfter is how long a screen keeps its last frame without drawing
// another. A player who pauses longer than this gets a whole frame for
// the next key (about 2.4 KB at 80×24, against 300 bytes), which happens
// seldom in play; an idle screen holds its frame for a third as long as
// it did at 30 s.
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
