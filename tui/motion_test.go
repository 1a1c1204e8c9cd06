package tui

import (
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// movedHarness is a game 3×3 at 40×14, seed 1, after enough moves of
// left and down to have merged, with or without motion.
func movedHarness(t *testing.T, motion bool, dirs []engine.Direction) *harness {
	t.Helper()
	st := newFakeStore()
	st.put(3, 1, dirs)
	return newHarness(t, Options{Store: st, Size: 3, Motion: motion}, 40, 14)
}

// TestMotionFrames: a move that merges is drawn as a slide and a pop, one
// draw.MotionStep apart, then the board at rest exactly as without motion.
func TestMotionFrames(t *testing.T) {
	h := movedHarness(t, true, nil)
	still := movedHarness(t, false, nil)
	for _, k := range []string{"left", "down"} {
		h.press(k)
		still.press(k)
	}
	t0 := time.Unix(1000, 0)
	for step, name := range []string{"motion-slide", "motion-pop"} {
		at := t0.Add(time.Duration(step) * draw.MotionStep)
		if next := h.m.Animate(at, true); next != draw.MotionStep {
			t.Fatalf("frame %d: next in %v, want %v", step+1, next, draw.MotionStep)
		}
		golden(t, name, h.frame())
	}
	if next := h.m.Animate(t0.Add(2*draw.MotionStep), true); next != 0 {
		t.Fatalf("after the pop: next in %v, want 0 (at rest)", next)
	}
	if got, want := h.frame(), still.frame(); got != want {
		t.Errorf("the frame at rest differs from the one without motion:\n%s\nwant:\n%s", got, want)
	}
}

// TestMotionCutShort: a key ends the motion at once, and with no motion
// allowed (the gate sheds it) the first frame is the board at rest.
func TestMotionCutShort(t *testing.T) {
	still := movedHarness(t, false, nil)
	still.press("left")
	for _, tt := range []struct {
		name    string
		allowed bool
		key     string
	}{
		{"a key cuts it", true, "?"},
		{"shed", false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := movedHarness(t, true, nil)
			h.press("left")
			t0 := time.Unix(1000, 0)
			if next := h.m.Animate(t0, tt.allowed); (next != 0) != tt.allowed {
				t.Fatalf("Animate allowed=%v: next %v", tt.allowed, next)
			}
			if tt.key != "" {
				h.press(tt.key)
				h.press(tt.key) // and back to the game
				if next := h.m.Animate(t0.Add(draw.MotionStep), true); next != 0 {
					t.Fatalf("after a key the motion goes on: next %v", next)
				}
			}
			if got, want := h.frame(), still.frame(); got != want {
				t.Errorf("frame:\n%s\nwant the board at rest:\n%s", got, want)
			}
		})
	}
}
