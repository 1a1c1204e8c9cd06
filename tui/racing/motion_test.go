package racing

import (
	"context"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/tui/draw"
)

// motionRace is a race of ann and bob whose screen for ann draws motion,
// and beside it a screen for ann without motion (still), which draws the
// frame the other must come to rest on. Both are w×h, their clocks
// stopped.
func motionRace(t *testing.T, w, h int) (m, still *Model, tickets []*race.Ticket) {
	t.Helper()
	m, tickets = runningRace(t, "ann", "bob")
	m.opts.Motion = true
	still = New(Options{Ticket: tickets[0], Context: context.Background()})
	still.Update(raceViewMsg{ticket: tickets[0], view: tickets[0].Now()})
	frozen := time.Now()
	for _, s := range []*Model{m, still} {
		s.now = func() time.Time { return frozen }
		s.Update(tea.WindowSizeMsg{Width: w, Height: h})
	}
	return m, still, tickets
}

// stillAfter has still show what m's last move showed: the race's view
// after it, and the move's marks and gain, which only the screen that
// made the move knows.
func stillAfter(m, still *Model, t *race.Ticket) {
	still.marks, still.lastGain = m.marks, m.lastGain
	still.Update(raceViewMsg{ticket: t, view: t.Now()})
}

// raceFrameOf is m's frame as a racer's screen draws it (AppendView),
// after checking that View draws the same: View keeps its frame until
// what it shows changes, and a move in motion changes it.
func raceFrameOf(t *testing.T, m *Model) string {
	t.Helper()
	kept := m.View().Content
	_, b := m.AppendView(nil)
	if string(b) != kept {
		t.Fatalf("View draws\n%s\nAppendView\n%s", kept, b)
	}
	m.View() // kept again, for the next frame
	return kept
}

// moveMerging presses arrows until a move merges tiles: that move is the
// last one shown.
func moveMerging(t *testing.T, m *Model) {
	t.Helper()
	for range 200 {
		for _, k := range arrowKeys {
			moves := m.play.Moves()
			if press(m, k); m.play.Moves() > moves && m.lastGain > 0 {
				return
			}
		}
	}
	t.Fatal("no move merged")
}

// TestRaceMotionEndsAtRest: the player's move that merges is drawn as a
// slide and a pop, a draw.MotionStep apart, then at rest exactly as a
// screen without motion draws the committed board; in the narrow layout
// and the wide one.
func TestRaceMotionEndsAtRest(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		m, still, tickets := motionRace(t, size.w, size.h)
		moveMerging(t, m)
		if !m.motion.Active() {
			t.Fatalf("%d×%d: the move that merged is not in motion", size.w, size.h)
		}
		stillAfter(m, still, tickets[0])
		rest := raceFrameOf(t, still)
		t0 := time.Unix(1000, 0)
		var frames []string
		for step := range 2 {
			if next := m.Animate(t0.Add(time.Duration(step)*draw.MotionStep), true); next != draw.MotionStep {
				t.Fatalf("%d×%d frame %d: next in %v, want %v", size.w, size.h, step+1, next, draw.MotionStep)
			}
			f := raceFrameOf(t, m)
			if f == rest {
				t.Errorf("%d×%d frame %d: the board at rest, not in motion", size.w, size.h, step+1)
			}
			frames = append(frames, f)
		}
		if frames[0] == frames[1] {
			t.Errorf("%d×%d: the pop is drawn as the slide", size.w, size.h)
		}
		if next := m.Animate(t0.Add(2*draw.MotionStep), true); next != 0 {
			t.Fatalf("%d×%d after the pop: next in %v, want 0 (at rest)", size.w, size.h, next)
		}
		if got := raceFrameOf(t, m); got != rest {
			t.Errorf("%d×%d: the frame at rest\n%s\ndiffers from the one without motion\n%s", size.w, size.h, got, rest)
		}
	}
}

// TestRaceMotionCutShort: a key during a move's motion is applied at once
// (its move is committed and shown, at rest until its own motion's first
// frame); and with motion not allowed (the gate sheds it), or off, the
// frame is the board at rest.
func TestRaceMotionCutShort(t *testing.T) {
	t0 := time.Unix(1000, 0)
	t.Run("a key", func(t *testing.T) {
		m, still, tickets := motionRace(t, 80, 24)
		moveMerging(t, m)
		if next := m.Animate(t0, true); next == 0 {
			t.Fatal("the move is not in motion")
		}
		moves := m.play.Moves()
		for _, k := range arrowKeys {
			if press(m, k); m.play.Moves() > moves {
				break
			}
		}
		if m.play.Moves() != moves+1 {
			t.Fatalf("keys during the motion made %d moves, want 1", m.play.Moves()-moves)
		}
		stillAfter(m, still, tickets[0])
		if got, want := raceFrameOf(t, m), raceFrameOf(t, still); got != want {
			t.Errorf("the frame after the key\n%s\nwant its move at rest\n%s", got, want)
		}
	})
	t.Run("shed", func(t *testing.T) {
		m, still, tickets := motionRace(t, 80, 24)
		moveMerging(t, m)
		if next := m.Animate(t0, false); next != 0 {
			t.Fatalf("motion not allowed: next in %v", next)
		}
		stillAfter(m, still, tickets[0])
		if got, want := raceFrameOf(t, m), raceFrameOf(t, still); got != want {
			t.Errorf("the frame with motion shed\n%s\nwant the board at rest\n%s", got, want)
		}
	})
	t.Run("off", func(t *testing.T) {
		m, _, _ := motionRace(t, 80, 24)
		m.opts.Motion = false
		moveMerging(t, m)
		if next := m.Animate(t0, true); next != 0 || m.motion.Active() {
			t.Fatalf("motion off: next in %v", next)
		}
	})
}

// TestRaceRedrawsMotionFrame: a frame of motion can be drawn again, the
// same bytes, after the player's next move has started its own motion
// (screen.ViewRedrawer): the frame keeps which move it showed.
func TestRaceRedrawsMotionFrame(t *testing.T) {
	m, _, _ := motionRace(t, 80, 24)
	moveMerging(t, m)
	t0 := time.Unix(1000, 0)
	m.Animate(t0, true)
	_, frame := m.AppendView(nil)
	moves := m.play.Moves()
	for _, k := range arrowKeys {
		if press(m, k); m.play.Moves() > moves {
			break
		}
	}
	m.Animate(t0.Add(time.Second), true)
	if again := m.AppendLastView(nil); string(again) != string(frame) {
		t.Errorf("the motion frame drawn again is\n%s\nnot\n%s", again, frame)
	}
}
