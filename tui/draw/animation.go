package draw

import (
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// MotionStep is how long each frame of a move's motion shows: the slide,
// the pop when the move merged, then the board at rest, within about a
// tenth of a second, as the original game's slide.
const MotionStep = 40 * time.Millisecond

// MotionAt is which frame of a move's motion a player's board shows: the
// move (the board before it and its direction) and Frame, 1 the slide, 2
// the pop; Frame 0 is the board at rest. It is a value, so that a screen
// that draws its last frame again (the race's) keeps what it showed.
type MotionAt struct {
	Before engine.Board
	Dir    engine.Direction
	Frame  int
}

// Animation is the move in flight on a player's own board: the game
// screen's and the race's, each of them package screen's Animator. The
// screen starts it when it shows a move (Start), ends it at every key, so
// that input is never behind an animation (Stop), and steps it before
// each frame it may draw motion in (Advance); Motion is the frame to
// draw. The zero value is at rest.
type Animation struct {
	active bool
	frames int       // 1: the slide; 2: the slide and the pop
	start  time.Time // when its first frame was drawn; zero: not yet
	at     MotionAt
	// frame is the last motion frame handed out, with the move its
	// paths were found for.
	frame    Motion
	pathsFor MotionAt
}

// Start sets the move just shown in motion: the board before it and its
// direction give where each tile went; merged, that it merged tiles (a
// pop follows the slide).
func (a *Animation) Start(before engine.Board, d engine.Direction, merged bool) {
	a.active, a.start = true, time.Time{}
	a.at = MotionAt{Before: before, Dir: d}
	a.frames = 1
	if merged {
		a.frames = 2
	}
}

// Stop ends the motion: the next frame is the board at rest.
func (a *Animation) Stop() { a.active, a.at.Frame = false, 0 }

// Active reports whether a move is in motion.
func (a *Animation) Active() bool { return a.active }

// Advance picks the frame of the motion for now, its first frame drawn at
// the first call, and returns how long until the next; 0 when its frames
// are over, and the board is at rest.
func (a *Animation) Advance(now time.Time) time.Duration {
	if !a.active {
		return 0
	}
	if a.start.IsZero() {
		a.start = now
	}
	step := int(now.Sub(a.start)/MotionStep) + 1
	if step > a.frames {
		a.Stop()
		return 0
	}
	a.at.Frame = step
	return a.start.Add(time.Duration(step) * MotionStep).Sub(now)
}

// At is the frame on screen now: Frame 0 at rest, and before the first
// Advance.
func (a *Animation) At() MotionAt {
	if !a.active {
		return MotionAt{}
	}
	return a.at
}

// Motion is frame at (At's, now or kept from an earlier frame) of the
// move that ended on board after with marks ms, to draw with cache c
// (BoardCache.AppendMotionLine); nil at rest. It is the Animation's own,
// valid until the next call.
func (a *Animation) Motion(c *BoardCache, at MotionAt, after engine.Board, ms *Marks) *Motion {
	if at.Frame == 0 {
		return nil
	}
	f := &a.frame
	if move := (MotionAt{Before: at.Before, Dir: at.Dir}); f.Paths == nil || a.pathsFor != move {
		f.Paths, a.pathsFor = at.Before.Paths(at.Dir, f.Paths[:0]), move
	}
	f.Pop, f.After, f.Marks = at.Frame == 2, after, ms
	if big := f.Big; big == nil || big.styles != c.styles || big.N != c.N || big.Tier.W != c.Tier.W+2 || big.Tier.H != c.Tier.H+2 || big.Tier.GX != c.Tier.GX || big.Tier.GY != c.Tier.GY {
		f.Big = c.PopCache()
	}
	return f
}
