package screen

import (
	"sync/atomic"
	"time"
)

// Animator is a model whose view moves by itself for a moment after a
// message: the game screen slides a move's tiles and pops its merges.
// Before each frame the screen calls Animate with the time and whether it
// may draw motion now; the model sets its view to the animation's state
// at now (its last state when motion is false) and returns how long until
// its view next changes by itself, 0 when it is still. The screen draws
// that frame with its frame timer, on no goroutine of its own. Keys are
// not held for motion: a key's frame is drawn at once as ever, and the
// model ends its motion when a key comes.
type Animator interface {
	Animate(now time.Time, motion bool) time.Duration
}

// MotionGate is what the screens of one server share to decide whether
// they may draw motion: none above a number of screens open at once, and
// none for a while after any screen found its motion frames late (its
// timer fired well after it was due: the machine is behind). Motion is
// the first thing a loaded server gives up, before latency. A screen also
// draws none while its own writes are slow (the client does not keep up).
type MotionGate struct {
	max       int64
	open      atomic.Int64
	shedUntil atomic.Int64 // Unix nanoseconds
}

// shedFor is how long motion stays off after a late frame.
const shedFor = 2 * time.Second

// NewMotionGate returns a gate that allows motion while at most max
// screens are open.
func NewMotionGate(max int) *MotionGate { return &MotionGate{max: int64(max)} }

// Open is how many screens on the gate are running.
func (g *MotionGate) Open() int { return int(g.open.Load()) }

// Shedding reports whether the gate holds motion back at now.
func (g *MotionGate) Shedding(now time.Time) bool {
	return g.open.Load() > g.max || now.UnixNano() < g.shedUntil.Load()
}

// late is told by a screen whose motion frame was drawn late.
func (g *MotionGate) late(now time.Time) { g.shedUntil.Store(now.Add(shedFor).UnixNano()) }

// motionOK reports whether this screen may draw motion now; s.mu is held.
func (s *Screen) motionOK(now time.Time) bool {
	return s.motion != nil && !s.motion.Shedding(now) && s.lastWrite <= s.interval
}

// animate lets an Animator set its view for the frame about to be drawn,
// and returns when it next changes by itself (zero: it does not); s.mu
// is held.
func (s *Screen) animate(now time.Time) time.Time {
	a, ok := s.model.(Animator)
	if !ok {
		return time.Time{}
	}
	s.animDue = time.Time{}
	if d := a.Animate(now, s.motionOK(now)); d > 0 {
		s.animDue = now.Add(d)
	}
	return s.animDue
}

// checkLate tells the gate when the motion frame the timer fired for is
// late; s.mu is held.
func (s *Screen) checkLate(now time.Time) {
	if !s.animDue.IsZero() && s.motion != nil && now.Sub(s.animDue) > 2*s.interval {
		s.motion.late(now)
	}
}

// scheduleMotion has the next motion frame drawn at due by the frame
// timer; s.mu is held.
func (s *Screen) scheduleMotion(due time.Time) {
	s.changed = true
	s.timed = true
	wait := time.Until(due)
	if s.timer == nil {
		s.timer = time.AfterFunc(wait, s.timedFrame)
	} else {
		s.timer.Reset(wait)
	}
}
