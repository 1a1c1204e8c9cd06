package tui

import (
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// motionStep is how long each frame of a move's motion shows: the slide,
// the pop when the move merged, then the board at rest, within about a
// tenth of a second, as the original game's slide.
const motionStep = 40 * time.Millisecond

// motion is the move in flight on the game screen: its tiles' paths and
// the frame of it to draw (see draw.Motion). Options.Motion turns it on;
// the screen runs it (package screen's Animator) while it can afford it.
type motion struct {
	active bool
	frames int       // 1: the slide; 2: the slide and the pop
	start  time.Time // when its first frame was drawn; zero: not yet
	step   int       // the frame on screen, from 1
	frame  draw.Motion
}

// startMotion sets the move just shown in motion: the board before it
// and its direction give where each tile went.
func (m *Model) startMotion(before engine.Board, d engine.Direction, merged bool) {
	if !m.opts.Motion {
		return
	}
	mo := &m.motion
	mo.active, mo.start, mo.step = true, time.Time{}, 0
	mo.frames = 1
	if merged {
		mo.frames = 2
	}
	mo.frame.Paths = before.Paths(d, mo.frame.Paths[:0])
}

// stopMotion ends the motion on screen: the next frame is the board at
// rest. Every key does, so that input is never behind an animation.
func (m *Model) stopMotion() { m.motion.active = false }

// Animate is package screen's Animator: it picks the frame of the motion
// for now, or ends it (motion not allowed now, or its frames are over).
func (m *Model) Animate(now time.Time, allowed bool) time.Duration {
	mo := &m.motion
	if !mo.active {
		return 0
	}
	// Motion is the game's: not while a commit is out (the frame shows
	// the board before the move) or another screen is over it.
	if !allowed || m.moving != nil || m.views.Top() != nil || m.screen == screenHelp || m.screen == screenLeaderboard {
		mo.active = false
		return 0
	}
	if mo.start.IsZero() {
		mo.start = now
	}
	step := int(now.Sub(mo.start)/motionStep) + 1
	if step > mo.frames {
		mo.active = false
		return 0
	}
	mo.step = step
	return mo.start.Add(time.Duration(step) * motionStep).Sub(now)
}

// motionFrame is the motion frame to draw over board b with cache c, nil
// when none is in flight.
func (m *Model) motionFrame(c *draw.BoardCache, b engine.Board) *draw.Motion {
	mo := &m.motion
	if !mo.active || mo.step == 0 {
		return nil
	}
	f := &mo.frame
	f.Pop, f.After, f.Marks = mo.step == 2, b, &m.marks
	if f.Big == nil || f.Big.N != c.N || f.Big.Tier.W != c.Tier.W+2 || f.Big.Tier.H != c.Tier.H+2 {
		f.Big = c.PopCache()
	}
	return f
}
