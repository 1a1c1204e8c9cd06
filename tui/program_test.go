package tui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/ssh2048/ssh2048/engine"
)

// syncBuffer is a bytes.Buffer safe for the renderer's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgram runs the model in a real Bubble Tea program, typing faster
// than it draws: every key arrives, in order, and quitting leaves the
// final line on the terminal.
func TestProgram(t *testing.T) {
	st := newFakeStore()
	in, typing := io.Pipe()
	out := &syncBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts := Options{Store: st, Player: "ann", Context: ctx}
	done := make(chan error, 1)
	go func() {
		done <- Run(opts,
			tea.WithInput(in), tea.WithOutput(out),
			tea.WithColorProfile(colorprofile.ASCII), tea.WithWindowSize(80, 24),
			tea.WithoutSignalHandler())
	}()
	arrows := map[engine.Direction]string{engine.Up: "\x1b[A", engine.Down: "\x1b[B", engine.Right: "\x1b[C", engine.Left: "\x1b[D"}
	typed := []engine.Direction{engine.Left, engine.Up, engine.Right, engine.Down}
	typed = repeat(typed, 25)
	var keys strings.Builder
	for _, d := range typed {
		keys.WriteString(arrows[d])
	}
	if _, err := io.WriteString(typing, keys.String()); err != nil {
		t.Fatal(err)
	}
	// Wait until the program has drawn a frame, then quit.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Moves") {
		if time.Now().After(deadline) {
			t.Fatalf("no frame drawn: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := io.WriteString(typing, "q"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("program did not quit")
	}
	// The moves that changed the board are exactly those a replay of the
	// typed keys makes, in the same order.
	g, _ := engine.PCG.NewGame(4, 1)
	var want []engine.Direction
	for _, d := range typed {
		if g.Move(d).Moved {
			want = append(want, d)
		}
		if g.Over() {
			break
		}
	}
	got := st.moves(4)
	if len(got) != len(want) {
		t.Fatalf("recorded %d moves, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("move %d recorded %v, want %v", i, got[i], want[i])
		}
	}
	if !strings.Contains(out.String(), "Your game is saved") {
		t.Fatalf("final line missing from output")
	}
}
