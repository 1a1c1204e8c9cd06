package tui

import (
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// startMotion sets the move just shown in motion (draw.Animation), where
// Options.Motion turns motion on; the screen runs it (package screen's
// Animator) while it can afford it.
func (m *Model) startMotion(before engine.Board, d engine.Direction, merged bool) {
	if m.opts.Motion {
		m.motion.Start(before, d, merged)
	}
}

// stopMotion ends the motion on screen: the next frame is the board at
// rest. Every key does, so that input is never behind an animation.
func (m *Model) stopMotion() { m.motion.Stop() }

// Animate is package screen's Animator: it picks the frame of the motion
// for now, or ends it (motion not allowed now, or its frames are over).
func (m *Model) Animate(now time.Time, allowed bool) time.Duration {
	if !m.motion.Active() {
		return 0
	}
	// Motion is the game's: not while a commit is out (the frame shows
	// the board before the move) or another screen is over it.
	if !allowed || m.moving != nil || m.views.Top() != nil || m.screen == screenHelp || m.screen == screenLeaderboard {
		m.motion.Stop()
		return 0
	}
	return m.motion.Advance(now)
}

// motionFrame is the motion frame to draw over board b with cache c, nil
// when none is in flight.
func (m *Model) motionFrame(c *draw.BoardCache, b engine.Board) *draw.Motion {
	return m.motion.Motion(c, m.motion.At(), b, &m.marks)
}
