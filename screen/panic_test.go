package screen

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// panicModel is testModel that panics where it is told to.
type panicModel struct {
	testModel
	inInit   bool
	onKey    string // Update panics on this key
	inView   string // View panics once this key was typed
	inCmd    string // the command this key returns panics
	inSeq    string // … the second command of a tea.Sequence
	inBatch  string // … a command of a tea.Batch inside a tea.Sequence
	viewBomb bool
}

type boom struct{ where string }

func (m *panicModel) Init() tea.Cmd {
	if m.inInit {
		panic(boom{"init"})
	}
	return nil
}

func (m *panicModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case m.onKey:
			panic(boom{"update"})
		case m.inView:
			m.mu.Lock()
			m.viewBomb = true
			m.mu.Unlock()
		case m.inCmd:
			return m, func() tea.Msg { panic(boom{"command"}) }
		case m.inSeq:
			return m, tea.Sequence(func() tea.Msg { return countMsg{} }, func() tea.Msg { panic(boom{"sequence"}) })
		case m.inBatch:
			return m, tea.Sequence(tea.Batch(func() tea.Msg { return countMsg{} }, func() tea.Msg { panic(boom{"batch"}) }))
		}
	}
	m.testModel.Update(msg)
	return m, nil
}

func (m *panicModel) View() tea.View {
	m.mu.Lock()
	bomb := m.viewBomb
	m.mu.Unlock()
	if bomb {
		panic(boom{"view"})
	}
	return m.testModel.View()
}

// startPanicky runs m like start runs a testModel.
func startPanicky(t *testing.T, m *panicModel) *run {
	t.Helper()
	kb := newKeyboard()
	ctx, cancel := context.WithCancel(context.Background())
	out := &outBuffer{}
	r := &run{s: New(m, out, Options{Width: 80, Height: 24, Profile: colorprofile.TrueColor}),
		model: &m.testModel, out: out, in: kb, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = r.s.Run(ctx, kb)
	}()
	t.Cleanup(func() {
		r.s.Stop()
		cancel()
		kb.close()
		<-r.done
	})
	return r
}

// TestScreenPanicEndsThatScreenOnly: a model that panics in Init, Update,
// View or a command ends its own screen with a *PanicError that carries
// the panic and its stack, and gives the terminal back; the model is not
// called again, and another screen running beside it goes on.
func TestScreenPanicEndsThatScreenOnly(t *testing.T) {
	tests := []struct {
		where string
		model *panicModel
		key   string
	}{
		{"init", &panicModel{inInit: true}, ""},
		{"update", &panicModel{onKey: "x"}, "x"},
		{"view", &panicModel{inView: "v"}, "v"},
		{"command", &panicModel{inCmd: "c"}, "c"},
		{"sequence", &panicModel{inSeq: "s"}, "s"},
		{"batch", &panicModel{inBatch: "b"}, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.where, func(t *testing.T) {
			bystander := &testModel{}
			other := start(t, bystander, nil, Options{})
			r := startPanicky(t, tt.model)
			if tt.key != "" {
				waitFor(t, "the first frame", func() bool { return strings.Contains(r.out.String(), "count 0") })
				r.in.chunks <- tt.key
			}
			err := r.wait(t)
			var pe *PanicError
			if !errors.As(err, &pe) {
				t.Fatalf("Run: got %v, want a *PanicError", err)
			}
			if b, ok := pe.Value.(boom); !ok || b.where != tt.where {
				t.Errorf("panic value %#v, want boom{%q}", pe.Value, tt.where)
			}
			if !strings.Contains(string(pe.Stack), "panicModel") {
				t.Errorf("the stack does not show the panicking model:\n%s", pe.Stack)
			}
			out := r.out.String()
			if !strings.HasSuffix(out, ansi.ResetModeAltScreenSaveCursor+ansi.ShowCursor+popTitle) {
				t.Errorf("the terminal is not given back at the end: %q", out[max(0, len(out)-40):])
			}
			msgs := len(tt.model.messages())
			r.s.Send(countMsg{})
			if len(tt.model.messages()) != msgs {
				t.Error("the model got a message after its panic")
			}
			// The other screen never noticed.
			other.typeKeys(t, "ab")
			if got := bystander.typed(); strings.Join(got, "") != "ab" {
				t.Errorf("the other screen typed %q", got)
			}
			if other.ended() {
				t.Error("the other screen ended")
			}
		})
	}
}

// TestScreenPanicInTheReader: a reader that panics (a bug in a filter in
// front of the session, say) ends the screen the same way.
func TestScreenPanicInTheReader(t *testing.T) {
	s := New(&testModel{}, &outBuffer{}, Options{Width: 20, Height: 5})
	s.Start(panickyReader{})
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the screen did not end")
	}
	if _, ok := s.Err().(*PanicError); !ok {
		t.Fatalf("Err: got %v, want a *PanicError", s.Err())
	}
}

type panickyReader struct{}

func (panickyReader) Read([]byte) (int, error) { panic("reader") }

var _ io.Reader = panickyReader{}
