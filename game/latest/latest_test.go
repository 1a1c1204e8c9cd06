package latest

import (
	"context"
	"testing"
	"time"
)

// TestLatestUpdateSoon: waiters are woken once, after the delay, for
// every change made meanwhile; whoever asks during the delay gets the
// new value at once.
func TestLatestUpdateSoon(t *testing.T) {
	l := New(0)
	_, seen := l.Get()
	woken := make(chan int, 10)
	go func() {
		v, _, err := l.Next(context.Background(), seen)
		if err == nil {
			woken <- v
		}
	}()
	time.Sleep(20 * time.Millisecond) // the waiter waits
	start := time.Now()
	const after = 100 * time.Millisecond
	l.UpdateSoon(func(v *int) { *v = 1 }, after)
	l.UpdateSoon(func(v *int) { *v = 2 }, after)
	if v, version, _ := l.Next(context.Background(), seen); v != 2 || version != seen+2 {
		t.Fatalf("asked during the delay: %d (version %d), want 2 (version %d)", v, version, seen+2)
	}
	select {
	case v := <-woken:
		if d := time.Since(start); d < after {
			t.Fatalf("the waiter was woken after %v, before the delay of %v", d, after)
		}
		if v != 2 {
			t.Fatalf("the waiter got %d, want the newest, 2", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was never woken")
	}
}

// TestLatestSoonestWakeWins: a change that must be shown soon is not held
// back by a wake scheduled later for an earlier change.
func TestLatestSoonestWakeWins(t *testing.T) {
	l := New(0)
	_, seen := l.Get()
	woken := make(chan int, 1)
	go func() {
		if v, _, err := l.Next(context.Background(), seen); err == nil {
			woken <- v
		}
	}()
	time.Sleep(20 * time.Millisecond)
	l.UpdateSoon(func(v *int) { *v = 1 }, time.Hour)
	l.UpdateSoon(func(v *int) { *v = 2 }, 10*time.Millisecond)
	select {
	case v := <-woken:
		if v != 2 {
			t.Fatalf("woken with %d, want 2", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the sooner wake was held back by the later one")
	}
}

// TestLatestFlush: a change made to be shown once the player's frame is
// written waits for Flush, not for its bound; a Flush for a change held
// back with UpdateSoon wakes no one.
func TestLatestFlush(t *testing.T) {
	for _, after := range []time.Duration{0, time.Millisecond} {
		l := New(0)
		_, seen := l.Get()
		waiting := l.ChangedSince(seen) // a waiter's channel, taken before the changes
		l.UpdateSoon(func(v *int) { *v = 1 }, time.Hour)
		l.Flush(after)
		select {
		case <-waiting:
			t.Fatalf("Flush(%v) woke the waiters of a change held back with UpdateSoon", after)
		case <-time.After(20 * time.Millisecond):
		}
		l.UpdateBeforeFlush(func(v *int) { *v = 2 }, time.Hour)
		select {
		case <-waiting:
			t.Fatal("woken before the flush")
		case <-time.After(20 * time.Millisecond):
		}
		l.Flush(after)
		select {
		case <-waiting:
			if v, _ := l.Get(); v != 2 {
				t.Fatalf("woken to %d, want 2", v)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Flush(%v) did not wake the waiters of a change made to be shown before it", after)
		}
	}
}
