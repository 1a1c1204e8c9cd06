package servertest

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"
)

// Screen is a screen command on a PTY, drawn into a virtual terminal:
// what a player sees, cell by cell.
type Screen struct {
	t    testing.TB
	in   io.Writer
	mu   sync.Mutex
	term *vt.Emulator
	done chan error
	// watched are the texts Watch looks for, each true once the screen
	// has shown it.
	watched map[string]bool
}

// screenWait bounds every wait for what a screen shows.
const screenWait = 20 * time.Second

// OpenScreen runs cmd on a w×h PTY of a new session of c.
func OpenScreen(t testing.TB, c *gossh.Client, cmd string, w, h int) *Screen {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return AttachScreen(t, s, cmd, w, h)
}

// AttachScreen runs cmd on a w×h PTY of session s (set up as the test
// needs: its environment).
func AttachScreen(t testing.TB, s *gossh.Session, cmd string, w, h int) *Screen {
	t.Helper()
	if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	v := &Screen{t: t, in: in, term: vt.NewEmulator(w, h), done: make(chan error, 1)}
	go io.Copy(io.Discard, v.term) //nolint:errcheck // the terminal's answers are not needed
	s.Stdout = v
	if err := s.Start(cmd); err != nil {
		t.Fatal(err)
	}
	go func() { v.done <- s.Wait() }()
	return v
}

func (v *Screen) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n, err := v.term.Write(p)
	if len(v.watched) > 0 {
		shown := v.term.String()
		for text := range v.watched {
			if strings.Contains(shown, text) {
				v.watched[text] = true
			}
		}
	}
	return n, err
}

// Watch has the screen look for text after every write from now on, for
// what a screen shows only for a moment; shown reports whether it has.
func (v *Screen) Watch(text string) (shown func() bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.watched == nil {
		v.watched = make(map[string]bool)
	}
	v.watched[text] = false
	return func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.watched[text]
	}
}

// Text is the screen as it stands.
func (v *Screen) Text() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.term.String()
}

// Send types keys.
func (v *Screen) Send(keys string) {
	v.t.Helper()
	if _, err := io.WriteString(v.in, keys); err != nil {
		v.t.Fatalf("send %q: %v", keys, err)
	}
}

// WaitText waits until the screen shows every one of texts.
func (v *Screen) WaitText(what string, texts ...string) string {
	v.t.Helper()
	return v.WaitUntil(what, func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// WaitUntil waits until ok says yes of the screen, and returns it.
func (v *Screen) WaitUntil(what string, ok func(string) bool) string {
	v.t.Helper()
	deadline := time.Now().Add(screenWait)
	for {
		s := v.Text()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Wait waits for the session to end and returns how it did (nil: status 0).
func (v *Screen) Wait() error {
	v.t.Helper()
	select {
	case err := <-v.done:
		return err
	case <-time.After(screenWait):
		v.t.Fatalf("the screen did not end; screen:\n%s", v.Text())
		return nil
	}
}
