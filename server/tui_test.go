package server_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/server"
)

// printer is a stand-in TUI that asks for what package screen does not
// do (tea.Println, a mouse) and quits on any key.
type printer struct{}

func (printer) Init() tea.Cmd { return tea.Println("hello") }
func (m printer) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		return m, tea.Quit
	}
	return m, nil
}
func (printer) View() tea.View {
	v := tea.NewView("printer")
	v.MouseMode = tea.MouseModeAllMotion
	return v
}

// TestUnsupportedLoggedOnce: what a game screen asks for and does not get
// is logged at Warn once for the server, not once a session.
func TestUnsupportedLoggedOnce(t *testing.T) {
	ts := startServer(t, func(c *server.Config) {
		c.TUI = func(ssh.Session, server.TUIEnv) tea.Model { return printer{} }
	})
	for i := range 3 {
		s, out, send := ptySession(t, ts.dial(t, "p", newKey(t)))
		waitFor(t, "the screen", func() bool { return strings.Contains(out.String(), "printer") })
		if code := quitScreen(t, s, send); code != 0 {
			t.Fatalf("session %d: exit %d", i, code)
		}
	}
	for _, what := range []string{"tea.Println", "tea.View.MouseMode"} {
		want := `level=WARN msg="game screen asked for what the screen does not do" what=` + what
		if n := strings.Count(ts.logs.String(), want+"\n"); n != 1 {
			t.Errorf("%q logged %d times for three sessions, want once:\n%s", want, n, ts.logs.String())
		}
	}
}

// keyCounter is a screen that hands every key it gets to the test.
type keyCounter struct{ keys chan<- string }

func (keyCounter) Init() tea.Cmd { return nil }
func (m keyCounter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		m.keys <- k.String()
	}
	return m, nil
}
func (keyCounter) View() tea.View { return tea.NewView("keys") }

// TestKeyFlood: keys over the rate are dropped whole, not queued; the
// screen takes keys again a moment later.
func TestKeyFlood(t *testing.T) {
	keys := make(chan string, 10000)
	ts := startServer(t, func(c *server.Config) {
		c.Limits.KeyRate = 50
		c.TUI = func(ssh.Session, server.TUIEnv) tea.Model { return keyCounter{keys: keys} }
	})
	_, out, send := ptySession(t, ts.dial(t, "p", newKey(t)))
	waitFor(t, "the screen", func() bool { return strings.Contains(out.String(), "keys") })
	count := func(within time.Duration, want string) int {
		n := 0
		deadline := time.After(within)
		for {
			select {
			case k := <-keys:
				if k != want {
					t.Fatalf("got key %q, want only %q: a sequence was cut", k, want)
				}
				n++
			case <-deadline:
				return n
			}
		}
	}
	start := time.Now()
	send(strings.Repeat("\x1b[A", 2000))
	n := count(time.Second, "up")
	// 50 at once, then 50 a second: about 100 within the second, however
	// long the flood took to arrive.
	if elapsed := time.Since(start).Seconds(); n < 50 || float64(n) > 50+50*elapsed+5 {
		t.Fatalf("%d of 2000 flooded keys got through in %.1f s, want 50 + 50/s", n, elapsed)
	}
	if n := count(500*time.Millisecond, "up"); n != 0 {
		t.Fatalf("%d keys still arriving after the flood: queued, not dropped", n)
	}
	time.Sleep(time.Second) // the keys are back
	send(strings.Repeat("\x1b[B", 10))
	if n := count(500*time.Millisecond, "down"); n != 10 {
		t.Fatalf("%d of 10 keys a second after the flood, want all", n)
	}
}

// TestTerminalSizes: the game screen survives terminals from 0×0 to
// 1000×1000 and storms of window changes, without its memory growing with
// the size a client claims.
func TestTerminalSizes(t *testing.T) {
	ts := startServer(t)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	// Each on a connection of its own (sessions per connection are capped).
	open := func(h, w int) (*gossh.Session, *syncBuffer, func(string)) {
		s, out, send := ptySessionSized(t, ts.dialGuest(t), w, h)
		waitFor(t, "the first frame", func() bool { return len(out.String()) > 0 })
		return s, out, send
	}
	// The heap with four screens of 1000×1000 against four of 80×24.
	const screens = 4
	heapWith := func(h, w int) int64 {
		var sessions []*gossh.Session
		for range screens {
			s, _, _ := open(h, w)
			sessions = append(sessions, s)
		}
		time.Sleep(300 * time.Millisecond)
		n := int64(heap())
		for _, s := range sessions {
			s.Close()
		}
		return n
	}
	heapWith(24, 80) // warm up
	small := heapWith(24, 80)
	big := heapWith(1000, 1000)
	t.Logf("heap with %d screens: %d kB at 80×24, %d kB at 1000×1000", screens, small>>10, big>>10)
	if big-small > screens*4<<20 {
		t.Fatalf("%d screens of 1000×1000 took %d MB more than of 80×24, want under 4 MB each", screens, (big-small)>>20)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range [][2]int{{0, 0}, {1, 1}, {1, 1000}, {1000, 1}, {1000, 1000}, {24, 80}} {
		t.Run(fmt.Sprintf("%dx%d", size[1], size[0]), func(t *testing.T) {
			s, out, send := open(size[0], size[1])
			// A storm of window changes, as fast as they go.
			start := time.Now()
			const storm = 500
			for range storm {
				if err := s.WindowChange(1+rng.IntN(1000), 1+rng.IntN(1000)); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%d window changes in %v", storm, time.Since(start).Round(time.Millisecond))
			s.WindowChange(24, 80)
			send("\x1b[A")
			n := len(out.String())
			waitFor(t, "a frame after the storm", func() bool { return len(out.String()) > n })
			if code := quitScreen(t, s, send); code != 0 {
				t.Fatalf("exit %d", code)
			}
		})
	}
	if logs := ts.logs.String(); strings.Contains(logs, "panic") || strings.Contains(logs, "game screen") {
		t.Fatalf("the screen failed:\n%s", logs)
	}
}
