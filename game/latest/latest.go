// Package latest holds the newest value of something that many wait on
// (a watched game, a race) and wakes them when it changes. A change costs
// one lock and one channel close whatever the number waiting; each of
// them reads the value when it is woken, and one that has fallen behind
// reads only the newest, never a queue of old ones.
//
// It is a package of its own because two publish through it: package
// game (a game's spectators) and package race (a race's racers and
// spectators), and a mover's seat wakes both once its frame is written
// (game.Seat.Shown, through Flush).
package latest

import (
	"context"
	"sync"
	"time"
)

// Value is one such value and those waiting on it.
type Value[T any] struct {
	mu      sync.Mutex
	value   T
	version uint64        // counts the changes; the first value is version 1
	changed chan struct{} // closed and replaced at every change
	waking  bool          // a wake is scheduled (UpdateSoon), at wakeAt
	wakeAt  time.Time
	timer   *time.Timer
	// early: the wake scheduled may come sooner, at Flush (a change
	// waiting for its player's frame, not one held back to be shown with
	// others).
	early bool
}

// New returns a Value holding v, at version 1.
func New[T any](v T) *Value[T] {
	return &Value[T]{value: v, version: 1, changed: make(chan struct{})}
}

// Update applies change to the value and wakes everyone waiting.
func (l *Value[T]) Update(change func(*T)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	change(&l.value)
	l.version++
	close(l.changed)
	l.changed = make(chan struct{})
}

// UpdateSoon applies change to the value now and wakes everyone waiting
// within after, once for all the changes made meanwhile (the soonest
// wake asked for wins). The caller, who has more to do (draw a player's
// own frame), does not pay for waking them, nor share the CPU with them
// right away: closing a channel readies every goroutine waiting on it,
// on the closer's goroutine, and they all want to run at once; and
// changes that come in a burst (spectators arriving) wake them once. One
// that calls Next meanwhile gets the new value at once.
func (l *Value[T]) UpdateSoon(change func(*T), after time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changeSoon(change, after)
}

// UpdateBeforeFlush is UpdateSoon for a change whose waiters should see
// it as soon as Flush is called (once the player's own frame of it is
// written), and within after if Flush never is.
func (l *Value[T]) UpdateBeforeFlush(change func(*T), after time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changeSoon(change, after)
	l.early = true
}

// changeSoon is UpdateSoon with l.mu held.
func (l *Value[T]) changeSoon(change func(*T), after time.Duration) {
	change(&l.value)
	l.version++
	at := time.Now().Add(after)
	switch {
	case l.timer == nil:
		l.timer = time.AfterFunc(after, l.wake)
	case !l.waking || at.Before(l.wakeAt):
		l.timer.Reset(after)
	default:
		return // a wake is due sooner
	}
	l.waking, l.wakeAt = true, at
}

// Flush wakes everyone waiting within after (now if after is 0), if a
// change made with UpdateBeforeFlush is waiting to be shown and its wake
// is due later.
func (l *Value[T]) Flush(after time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.waking || !l.early {
		return
	}
	if after <= 0 {
		l.timer.Stop()
		l.wakeLocked()
		return
	}
	if at := time.Now().Add(after); at.Before(l.wakeAt) {
		l.timer.Reset(after)
		l.wakeAt, l.early = at, false
	}
}

// wake wakes everyone waiting, unless Flush did already (the timer
// fired as it was stopped); a wake for a value they have already seen
// sends them back to wait.
func (l *Value[T]) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waking {
		l.wakeLocked()
	}
}

func (l *Value[T]) wakeLocked() {
	l.waking, l.early = false, false
	close(l.changed)
	l.changed = make(chan struct{})
}

// Get returns the value now and its version.
func (l *Value[T]) Get() (T, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.value, l.version
}

// closed is a channel that is closed: the wait of one who has not seen
// the newest value yet.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// ChangedSince returns a channel closed once the version is above seen
// (closed already if it is): for a waiter that selects on it with other
// things, and then reads the value with Next.
func (l *Value[T]) ChangedSince(seen uint64) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.version > seen {
		return closed
	}
	return l.changed
}

// Next returns the value once its version is above seen (at once if it
// already is), or ctx's error.
func (l *Value[T]) Next(ctx context.Context, seen uint64) (T, uint64, error) {
	for {
		l.mu.Lock()
		v, version, changed := l.value, l.version, l.changed
		l.mu.Unlock()
		if version > seen {
			return v, version, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			var zero T
			return zero, seen, ctx.Err()
		}
	}
}
