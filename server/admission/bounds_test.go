package admission_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/server"
	gossh "golang.org/x/crypto/ssh"
)

// setenv sends one env request on ch and returns the server's answer.
func setenv(t *testing.T, ch gossh.Channel, name, value string) bool {
	t.Helper()
	ok, err := ch.SendRequest("env", true, gossh.Marshal(struct{ Key, Value string }{name, value}))
	if err != nil {
		t.Fatalf("env %s: %v", name, err)
	}
	return ok
}

// connectionClosed reports whether c's connection has been closed by the
// server within a few seconds.
func connectionClosed(c *gossh.Client) bool {
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// TestEnvBounds: a session takes 32 environment variables and 4 KB of
// them; more are answered false, the session still runs, and a client
// that floods env requests has its connection closed. Other connections
// never notice.
func TestEnvBounds(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "p", newKey(t))
	ch, _, err := c.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 32 {
		if !setenv(t, ch, fmt.Sprintf("V%d", i), "x") {
			t.Fatalf("variable %d refused", i)
		}
	}
	if setenv(t, ch, "V32", "x") {
		t.Fatal("a 33rd variable was accepted")
	}
	ch.Close()

	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Setenv("BIG", strings.Repeat("v", 4000)); err != nil {
		t.Fatalf("4000 bytes: %v", err)
	}
	if err := s.Setenv("MORE", strings.Repeat("v", 100)); err == nil {
		t.Fatal("env past 4 KB was accepted")
	}
	var out strings.Builder
	s.Stdout = &out
	if err := s.Run("help"); err != nil || !strings.Contains(out.String(), "Commands:") {
		t.Fatalf("the session after refused env: %v, %q", err, out.String())
	}

	// The flood: refused requests, as fast as the client can send them.
	bystander := ts.dial(t, "b", newKey(t))
	flood := ts.dial(t, "f", newKey(t))
	fch, _, err := flood.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat("v", 1024)
	sent := 0
	for ; sent < 100_000; sent++ {
		payload := gossh.Marshal(struct{ Key, Value string }{fmt.Sprint("V", sent), value})
		if _, err := fch.SendRequest("env", false, payload); err != nil {
			break
		}
	}
	if !connectionClosed(flood) {
		t.Fatalf("the flooding connection is still open after %d env requests", sent)
	}
	if sent >= 50_000 {
		t.Errorf("%d env requests went out before the connection closed", sent)
	}
	if r := run(t, bystander, "help", ""); r.Code != 0 {
		t.Fatalf("bystander: %+v", r)
	}
	if !strings.Contains(ts.logs.String(), "refusal flood") {
		t.Error("the flood was not logged")
	}
}

// TestSessionRate: a connection opens sessions in a burst of 20, then at
// SessionRatePerConn a second; past that it is refused with a reason.
// Sessions are opened until one is refused: on a slow machine the burst
// takes long enough for a token or two to come back, which the bound on
// their number allows for.
func TestSessionRate(t *testing.T) {
	const rate = 2
	ts := startServer(t, func(c *server.Config) { c.Limits.SessionRatePerConn = rate })
	c := ts.dial(t, "p", newKey(t))
	start := time.Now()
	opened := 0
	for {
		s, err := c.NewSession()
		if err != nil {
			var oe *gossh.OpenChannelError
			if !errors.As(err, &oe) || oe.Reason != gossh.ResourceShortage || !strings.Contains(oe.Message, "sessions opened too fast") {
				t.Fatalf("session %d: %v, want it refused for resource shortage (sessions opened too fast)", opened, err)
			}
			break
		}
		if err := s.Run("help"); err != nil {
			t.Fatalf("session %d: %v", opened, err)
		}
		s.Close()
		if opened++; opened > 200 {
			t.Fatal("200 sessions opened at once, none refused")
		}
	}
	if most := 20 + int(rate*time.Since(start).Seconds()) + 1; opened < 20 || opened > most {
		t.Fatalf("%d sessions opened before a refusal, want 20 to %d", opened, most)
	}
	waitFor(t, "a token back at 2 a second", func() bool {
		s, err := c.NewSession()
		if err != nil {
			return false
		}
		defer s.Close()
		return s.Run("help") == nil
	})
	// Another connection has its own budget.
	if r := run(t, ts.dial(t, "q", newKey(t)), "help", ""); r.Code != 0 {
		t.Fatalf("another connection: %+v", r)
	}
}

// TestSessionNeverStarted: a session channel that starts nothing within
// the login grace is closed, and its place is given back.
func TestSessionNeverStarted(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Limits.LoginGrace, c.Limits.MaxSessionsPerConn = time.Second, 1 })
	c := ts.dial(t, "p", newKey(t))
	ch, reqs, err := c.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	go gossh.DiscardRequests(reqs)
	start := time.Now()
	closed := make(chan struct{})
	go func() {
		var b [1]byte
		ch.Read(b[:]) // EOF when the server closes the channel
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("the idle session channel was not closed")
	}
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Fatalf("closed after %v, before the grace", took)
	}
	ch.Close()
	waitFor(t, "the place to be given back", func() bool {
		s, err := c.NewSession()
		if err != nil {
			return false
		}
		defer s.Close()
		return s.Run("help") == nil
	})
}

// TestRefusedRequestsFlood: global requests and channels of types the
// server does not serve are refused; a client that keeps asking has its
// connection closed.
func TestRefusedRequestsFlood(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flood func(c *gossh.Client) error
	}{
		{"global requests", func(c *gossh.Client) error {
			_, _, err := c.SendRequest("tcpip-forward", true, gossh.Marshal(struct {
				Addr string
				Port uint32
			}{"127.0.0.1", 0}))
			return err
		}},
		{"port forwarding", func(c *gossh.Client) error {
			// x/crypto's client can wait for ever on a channel it opens as
			// the connection closes (it adds the channel after dropping
			// them all): a channel open that gets no answer means closed.
			done := make(chan error, 1)
			go func() {
				_, err := c.Dial("tcp", "127.0.0.1:9")
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(2 * time.Second):
				return errors.New("no answer")
			}
			var oe *gossh.OpenChannelError
			if errors.As(err, &oe) {
				return nil // refused: ask again
			}
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t)
			c := ts.dial(t, "p", newKey(t))
			n := 0
			for ; n < 5000; n++ {
				if err := tt.flood(c); err != nil {
					break
				}
			}
			if n >= 5000 || !connectionClosed(c) {
				t.Fatalf("the connection is still open after %d refusals", n)
			}
			if n < 200 {
				t.Fatalf("closed after %d refusals: too soon for an honest client", n)
			}
		})
	}
}

// TestScreenRequestsBounded: a game screen serves its channel's requests
// in its own loop (server/admission/channels.go), under the same bounds as before
// it started: a window change is taken, env and a second shell are
// refused, and a client that goes on sending requests the server does not
// serve has its connection closed.
func TestScreenRequestsBounded(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "p", newKey(t))
	s, out, send := ptySession(t, c)
	waitFor(t, "the first frame", func() bool { return len(out.String()) > 0 })
	for _, tt := range []struct {
		req     string
		payload []byte
		want    bool
	}{
		{"window-change", gossh.Marshal(struct{ W, H, Wp, Hp uint32 }{90, 30, 0, 0}), true},
		{"env", gossh.Marshal(struct{ Key, Value string }{"LANG", "C"}), false},
		{"shell", nil, false},
		{"x11-req", nil, false},
	} {
		ok, err := s.SendRequest(tt.req, true, tt.payload)
		if err != nil || ok != tt.want {
			t.Errorf("%s: answered %v, %v; want %v", tt.req, ok, err, tt.want)
		}
	}
	// The screen still takes keys after its requests.
	n := len(out.String())
	send("\x1b[A")
	waitFor(t, "a frame after the requests", func() bool { return len(out.String()) > n })
	sent := 0
	for ; sent < 5000; sent++ {
		if _, err := s.SendRequest("x11-req", true, nil); err != nil {
			break
		}
	}
	if sent >= 5000 || !connectionClosed(c) {
		t.Fatalf("the connection is still open after %d refused requests", sent)
	}
	if sent < 200 {
		t.Fatalf("closed after %d refusals: too soon for an honest client", sent)
	}
}

// screenUntilClosed is a TUI that never quits by itself; gone is closed
// when the server has ended it.
type screenUntilClosed struct{}

func (screenUntilClosed) Init() tea.Cmd                       { return nil }
func (screenUntilClosed) Update(tea.Msg) (tea.Model, tea.Cmd) { return screenUntilClosed{}, nil }
func (screenUntilClosed) View() tea.View                      { return tea.NewView("still here") }

// TestClosedChannelEndsScreen: a client that closes a game screen's
// channel but keeps its connection ends that screen, and gets its place
// back, rather than holding it until the connection closes.
func TestClosedChannelEndsScreen(t *testing.T) {
	ended := make(chan struct{}, 4)
	ts := startServer(t, func(c *server.Config) {
		c.Limits.MaxSessionsPerConn = 1
		c.TUI = func(sess ssh.Session, _ server.TUIEnv) tea.Model {
			go func() { <-sess.Context().Done(); ended <- struct{}{} }()
			return screenUntilClosed{}
		}
	})
	c := ts.dial(t, "p", newKey(t))
	for range 3 {
		// The last screen's place comes back once its handler is done.
		waitFor(t, "a place for the screen", func() bool {
			probe, _, err := c.OpenChannel("session", nil)
			if err == nil {
				probe.Close()
			}
			return err == nil
		})
		time.Sleep(50 * time.Millisecond) // for the probe's place
		s, out, _ := ptySession(t, c)
		waitFor(t, "the screen", func() bool { return strings.Contains(out.String(), "still here") })
		s.Close()
		select {
		case <-ended:
		case <-time.After(5 * time.Second):
			t.Fatal("the screen goes on after its channel closed")
		}
	}
}

// TestFairSlots is issue 12's lock-out: guests from one address fill what
// guests may take of --max-conns, and a player with a key from another
// address still logs in; a guest from a third address is told why not.
func TestFairSlots(t *testing.T) {
	ts := startServer(t, noCaps, func(c *server.Config) { c.Limits.MaxConns, c.Limits.KeyReserve = 10, 30 }) // 3 reserved
	guests := 0
	var told string
	for range 14 {
		c, instruction, err := dialGuestFrom(ts.addr, "127.0.0.1")
		if err != nil {
			if instruction != "" {
				told = instruction
			}
			continue
		}
		t.Cleanup(func() { c.Close() })
		guests++
	}
	if guests != 7 || !strings.Contains(told, "full for guests") {
		t.Fatalf("%d guests logged in (want 7); the others were told %q", guests, told)
	}
	counted := func(n int) {
		t.Helper()
		waitFor(t, "closed connections to be counted out", func() bool { return ts.srv.Connections() == n })
	}
	counted(7)
	// In the reserve, one login at a time from an address.
	stalled := admitted(t, ts.addr, "127.0.0.1")
	refused(t, ts.addr, "127.0.0.1", "one login at a time")
	stalled.Close()
	counted(7)

	for _, from := range []string{"127.0.0.77", "127.0.0.78"} {
		if r := run(t, dialFrom(t, ts.addr, from), "help", ""); r.Code != 0 {
			t.Fatalf("key holder from %s: %+v", from, r)
		}
	}
	if _, told, err := dialGuestFrom(ts.addr, "127.0.0.80"); err == nil || !strings.Contains(told, "full for guests") {
		t.Fatalf("a guest from elsewhere: %v, told %q", err, told)
	}
}

// TestMaxConnsPerIP: one address logs in at most MaxConnsPerIP
// connections, keys or not; the next is told why; other addresses are not
// affected, and a place comes back when a connection closes.
func TestMaxConnsPerIP(t *testing.T) {
	ts := startServer(t, noCaps, func(c *server.Config) { c.Limits.MaxConnsPerIP = 2 })
	a := dialFrom(t, ts.addr, "127.0.0.1")
	dialFrom(t, ts.addr, "127.0.0.1")
	if _, told, err := dialKeyFrom(ts.addr, "127.0.0.1", newKey(t)); err == nil || !strings.Contains(told, "too many players are connected from your address") {
		t.Fatalf("third key login: %v, told %q", err, told)
	}
	if _, told, err := dialGuestFrom(ts.addr, "127.0.0.1"); err == nil || !strings.Contains(told, "from your address") {
		t.Fatalf("guest login: %v, told %q", err, told)
	}
	dialFrom(t, ts.addr, "127.0.0.2")
	a.Close()
	waitFor(t, "the place to come back", func() bool {
		c, _, err := dialKeyFrom(ts.addr, "127.0.0.1", newKey(t))
		if err == nil {
			// A command before closing: the server is then done with the
			// login (charm.land/ssh counts a connection in after its
			// handshake, racing a Shutdown that starts meanwhile).
			run(t, c, "help", "")
			c.Close()
		}
		return err == nil
	})
}
