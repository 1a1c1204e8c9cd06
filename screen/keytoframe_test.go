package screen

import (
	"fmt"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// plusModel shows how many "+" keys it got; other keys change nothing.
type plusModel struct{ n int }

func (m *plusModel) Init() tea.Cmd { return nil }

func (m *plusModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "+" {
		m.n++
	}
	if _, ok := msg.(countMsg); ok {
		m.n += 100
	}
	return m, nil
}

func (m *plusModel) View() tea.View { return tea.NewView(fmt.Sprintf("plus %d", m.n)) }

// TestScreenKeyToFrame: each frame that shows a key is timed once, from
// the key's arrival; a key that changes nothing on screen and a frame
// that no key caused are not timed.
func TestScreenKeyToFrame(t *testing.T) {
	var (
		mu    sync.Mutex
		times []time.Duration
	)
	timed := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(times)
	}
	kb := newKeyboard()
	out := &outBuffer{}
	s := New(&plusModel{}, out, Options{Width: 20, Height: 3, FPS: 1000, KeyToFrame: func(d time.Duration) {
		mu.Lock()
		times = append(times, d)
		mu.Unlock()
	}})
	s.Start(kb)
	t.Cleanup(func() { s.Stop(); kb.close() })
	typeKeys := func(keys string) {
		t.Helper()
		kb.chunks <- keys
	}

	typeKeys("+")
	waitFor(t, "the frame of a key to be timed", func() bool { return timed() == 1 })
	typeKeys("-") // changes nothing on screen
	typeKeys("+") // the reader delivered "-" before it read this
	waitFor(t, "the second key's frame to be timed", func() bool { return timed() == 2 })
	s.Send(countMsg{}) // a frame, but no key
	// Writes: the terminal queries, the first frame, two frames of keys
	// (the key that changed nothing wrote nothing), the message's frame.
	waitFor(t, "the frame of a message", func() bool {
		out.mu.Lock()
		defer out.mu.Unlock()
		return out.writes >= 5
	})
	time.Sleep(20 * time.Millisecond)
	if n := timed(); n != 2 {
		t.Errorf("%d frames timed after two keys that changed the screen, one that did not and a message, want 2", n)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, d := range times {
		if d <= 0 || d > 10*time.Second {
			t.Errorf("key to frame %v: not a time from a key to its frame", d)
		}
	}
}

// waitingModel counts "+" keys, as a game commits moves: each in a
// command that returns when the test lets it, the keys typed meanwhile
// held until then (KeyWaiter). It shows only what is done.
type waitingModel struct {
	n, held  int
	inFlight bool
	let      chan struct{}
}

type plusDone struct{}

func (plusDone) KeysDone() {}

func (m *waitingModel) Init() tea.Cmd { return nil }

func (m *waitingModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if msg.String() != "+" {
			return m, nil
		}
		if m.inFlight {
			m.held++
			return m, nil
		}
		return m, m.plus()
	case plusDone:
		m.n++
		m.inFlight = false
		if m.held > 0 {
			m.held--
			return m, m.plus()
		}
	}
	return m, nil
}

func (m *waitingModel) plus() tea.Cmd {
	m.inFlight = true
	return func() tea.Msg {
		<-m.let
		return plusDone{}
	}
}

func (m *waitingModel) KeysPending() bool { return m.inFlight }

func (m *waitingModel) View() tea.View { return tea.NewView(fmt.Sprintf("plus %d", m.n)) }

// TestScreenKeyWaiter: keys whose effect comes in a later message are
// timed once, with the frame that shows them, from the first key's
// arrival; the frames drawn while they are pending are not their frame.
func TestScreenKeyWaiter(t *testing.T) {
	var (
		mu    sync.Mutex
		times []time.Duration
	)
	timed := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(times)
	}
	kb := newKeyboard()
	out := &outBuffer{}
	let := make(chan struct{})
	s := New(&waitingModel{let: let}, out, Options{Width: 20, Height: 3, FPS: 1000, KeyToFrame: func(d time.Duration) {
		mu.Lock()
		times = append(times, d)
		mu.Unlock()
	}})
	s.Start(kb)
	t.Cleanup(func() { s.Stop(); kb.close() })

	kb.chunks <- "+"
	kb.chunks <- "+"   // the reader delivered the first before it read this
	s.Send(countMsg{}) // drawn with the keys' effect
	time.Sleep(20 * time.Millisecond)
	if n := timed(); n != 0 {
		t.Fatalf("%d frames timed while the keys were pending, want 0", n)
	}
	out.mu.Lock()
	writes := out.writes
	out.mu.Unlock()
	let <- struct{}{}
	let <- struct{}{}
	waitFor(t, "the keys' frame to be timed", func() bool { return timed() == 1 })
	out.mu.Lock()
	drawn := out.writes - writes
	out.mu.Unlock()
	if drawn != 2 {
		t.Errorf("%d frames drawn for two keys whose effects came one after the other, want 2", drawn)
	}
	time.Sleep(20 * time.Millisecond)
	if n := timed(); n != 1 {
		t.Errorf("%d frames timed for two keys shown in one frame, want 1", n)
	}
}
