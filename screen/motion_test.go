package screen

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// animModel moves for frames frames after each key, a millisecond
// apart, then rests; it records what each frame showed and whether
// Animate allowed motion.
type animModel struct {
	frames int

	mu      sync.Mutex
	left    int
	showing string
	drawn   []string
	allowed []bool
}

func (m *animModel) Init() tea.Cmd { return nil }

func (m *animModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := msg.(tea.KeyPressMsg); ok {
		m.left = m.frames
	}
	return m, nil
}

func (m *animModel) Animate(_ time.Time, motion bool) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.allowed = append(m.allowed, motion)
	switch {
	case m.left == 0 || !motion:
		m.left, m.showing = 0, "rest"
		return 0
	}
	m.showing = "motion " + string(rune('0'+m.frames-m.left+1))
	m.left--
	return time.Millisecond
}

func (m *animModel) View() tea.View {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drawn = append(m.drawn, m.showing)
	v := tea.NewView(m.showing)
	v.AltScreen = true
	return v
}

func (m *animModel) seen() ([]string, []bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.drawn), slices.Clone(m.allowed)
}

// runAnim runs m on a screen with gate until the test ends, and returns
// its keyboard and screen.
func runAnim(t *testing.T, m *animModel, gate *MotionGate) (*keyboard, *Screen) {
	t.Helper()
	kb := newKeyboard()
	s := New(m, &outBuffer{}, Options{Width: 20, Height: 5, Profile: colorprofile.ASCII, Motion: gate, Unsupported: failUnsupported(t)})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Run(context.Background(), kb)
	}()
	t.Cleanup(func() {
		s.Stop()
		kb.close()
		<-done
	})
	return kb, s
}

func press(t *testing.T, kb *keyboard, keys string) {
	t.Helper()
	select {
	case kb.chunks <- keys:
	case <-time.After(10 * time.Second):
		t.Fatal("the screen does not read its input")
	}
}

// TestMotionByFrameTimer: a key's motion frames are drawn one after the
// other by the screen's own timer, with no input, and end at rest.
func TestMotionByFrameTimer(t *testing.T) {
	m := &animModel{frames: 2}
	kb, _ := runAnim(t, m, NewMotionGate(10))
	press(t, kb, "a")
	waitFor(t, "the frames at rest", func() bool {
		drawn, _ := m.seen()
		return len(drawn) >= 4 && drawn[len(drawn)-1] == "rest"
	})
	drawn, _ := m.seen()
	if want := []string{"rest", "motion 1", "motion 2", "rest"}; !slices.Equal(drawn[len(drawn)-4:], want) {
		t.Errorf("frames %q, want them to end %q", drawn, want)
	}
}

// TestMotionGate: without a gate, and above the gate's screens, Animate
// is told no motion, and the key's frame is the frame at rest; the gate
// counts its open screens until they stop.
func TestMotionGate(t *testing.T) {
	t.Run("no gate", func(t *testing.T) {
		m := &animModel{frames: 2}
		kb, _ := runAnim(t, m, nil)
		press(t, kb, "a")
		waitFor(t, "a frame after the key", func() bool { _, a := m.seen(); return len(a) >= 2 })
		drawn, allowed := m.seen()
		if slices.Contains(allowed, true) || slices.Contains(drawn, "motion 1") {
			t.Errorf("motion without a gate: frames %q, allowed %v", drawn, allowed)
		}
	})
	t.Run("above its screens", func(t *testing.T) {
		gate := NewMotionGate(1)
		m := &animModel{frames: 2}
		kb, _ := runAnim(t, m, gate)
		_, other := runAnim(t, &animModel{}, gate)
		waitFor(t, "two screens open", func() bool { return gate.Open() == 2 })
		press(t, kb, "a")
		waitFor(t, "a frame after the key", func() bool { _, a := m.seen(); return len(a) >= 2 })
		if drawn, allowed := m.seen(); allowed[len(allowed)-1] || slices.Contains(drawn, "motion 1") {
			t.Errorf("motion above the gate's screens: frames %q, allowed %v", drawn, allowed)
		}
		other.Stop()
		waitFor(t, "one screen open", func() bool { return gate.Open() == 1 })
		press(t, kb, "a")
		waitFor(t, "motion again", func() bool { d, _ := m.seen(); return slices.Contains(d, "motion 2") })
	})
}

// slowWriter takes longer than a frame interval over every write, as a
// client that does not keep up with its frames holds the screen's.
type slowWriter struct{ outBuffer }

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(50 * time.Millisecond)
	return w.outBuffer.Write(p)
}

// TestMotionShedForSlowWrites: a screen whose writes back up draws no
// motion, whatever the gate says.
func TestMotionShedForSlowWrites(t *testing.T) {
	m := &animModel{frames: 2}
	kb := newKeyboard()
	s := New(m, &slowWriter{}, Options{Width: 20, Height: 5, Profile: colorprofile.ASCII, Motion: NewMotionGate(10), Unsupported: failUnsupported(t)})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Run(context.Background(), kb)
	}()
	t.Cleanup(func() {
		s.Stop()
		kb.close()
		<-done
	})
	waitFor(t, "the first frame", func() bool { d, _ := m.seen(); return len(d) >= 1 })
	press(t, kb, "a")
	waitFor(t, "the key's frame", func() bool { _, a := m.seen(); return len(a) >= 2 })
	if drawn, allowed := m.seen(); allowed[1] || slices.Contains(drawn, "motion 1") {
		t.Errorf("motion over slow writes: frames %q, allowed %v", drawn, allowed)
	}
}

// onceSlowWriter takes longer than two frame intervals over the write
// after slow is set, then is quick again.
type onceSlowWriter struct {
	outBuffer
	slow atomic.Bool
}

func (w *onceSlowWriter) Write(p []byte) (int, error) {
	if w.slow.Swap(false) {
		time.Sleep(60 * time.Millisecond)
	}
	return w.outBuffer.Write(p)
}

// TestMotionLateShedsEverywhere: a motion frame drawn late (its screen
// was held past its time) makes the gate shed motion for every screen on
// it, for a while.
func TestMotionLateShedsEverywhere(t *testing.T) {
	gate := NewMotionGate(10)
	m := &animModel{frames: 3}
	w := &onceSlowWriter{}
	kb := newKeyboard()
	s := New(m, w, Options{Width: 20, Height: 5, Profile: colorprofile.ASCII, Motion: gate, Unsupported: failUnsupported(t)})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.Run(context.Background(), kb)
	}()
	t.Cleanup(func() {
		s.Stop()
		kb.close()
		<-done
	})
	waitFor(t, "the first frame", func() bool { d, _ := m.seen(); return len(d) >= 1 })
	if gate.Shedding(time.Now()) {
		t.Fatal("the gate sheds before anything was late")
	}
	w.slow.Store(true) // the key's first motion frame holds the screen past the next one's time
	press(t, kb, "a")
	waitFor(t, "the gate to shed", func() bool { return gate.Shedding(time.Now()) })
}
