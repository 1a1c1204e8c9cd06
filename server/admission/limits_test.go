package admission_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/server"
	gossh "golang.org/x/crypto/ssh"
)

// firstLine reads the server's first line: its SSH version when the
// connection is admitted, the reason when it is refused.
func firstLine(t testing.TB, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil && line == "" {
		t.Fatalf("no line from the server: %v", err)
	}
	c.SetReadDeadline(time.Time{})
	return line
}

// admitted opens a raw connection and checks that it is admitted: the
// server sends its version.
func admitted(t testing.TB, addr, from string) net.Conn {
	t.Helper()
	c := dialRaw(t, addr, from)
	if line := firstLine(t, c); !strings.HasPrefix(line, "SSH-2.0-") {
		t.Fatalf("connection from %q: got %q, want the server's version", from, line)
	}
	return c
}

// refused opens a raw connection and checks that it is refused at once,
// with a line saying why.
func refused(t testing.TB, addr, from, why string) {
	t.Helper()
	c := dialRaw(t, addr, from)
	start := time.Now()
	c.SetReadDeadline(start.Add(5 * time.Second))
	all, err := io.ReadAll(c)
	if err != nil || !strings.Contains(string(all), why) || strings.Contains(string(all), "SSH-") {
		t.Fatalf("connection from %q: got %q (%v), want it refused with %q", from, all, err, why)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("refused after %v, want at once", took)
	}
}

// closedWithin waits until the server closes c, and says how long that
// took from since.
func closedWithin(t testing.TB, c net.Conn, since time.Time, limit time.Duration) time.Duration {
	t.Helper()
	c.SetReadDeadline(since.Add(limit))
	_, err := io.Copy(io.Discard, c)
	took := time.Since(since)
	if err != nil {
		t.Fatalf("connection still open after %v: %v", took, err)
	}
	return took
}

// refusedSession checks that c may not open another session, and why.
func refusedSession(t *testing.T, c *gossh.Client, why string) {
	t.Helper()
	_, _, err := c.OpenChannel("session", nil)
	var oe *gossh.OpenChannelError
	if !errors.As(err, &oe) || oe.Reason != gossh.ResourceShortage || !strings.Contains(oe.Message, why) {
		t.Fatalf("session opened: got %v, want it refused for resource shortage (%s)", err, why)
	}
}

// TestLoginRate: connections from any number of addresses begin their
// logins at most LoginRate a second; each gets its turn, and one whose
// client stalls after its turn holds nobody up.
func TestLoginRate(t *testing.T) {
	ts := startServer(t, noCaps, func(c *server.Config) { c.Limits.LoginRate = 10 }) // a burst of 1
	// A client that connects and says nothing takes the first turn and
	// no more.
	start := time.Now()
	dialRaw(t, ts.addr, "127.0.0.9")
	// Five more, each from an address of its own, one after the other:
	// at 10 a second, the last is answered at least 0.5 s after the
	// first connection (less a margin for the limiter's clock), whatever
	// the machine's speed.
	for i := range 5 {
		admitted(t, ts.addr, fmt.Sprintf("127.0.0.%d", i+1))
	}
	if took := time.Since(start); took < 400*time.Millisecond {
		t.Fatalf("6 connections were all answered within %v, want them paced at 10 a second", took)
	}
	// A player whose turn came logs in as usual.
	dialFrom(t, ts.addr, "127.0.0.7")
}

// TestLoginGrace: connections that stall before the version exchange,
// after it, or in the middle of authentication are closed when the login
// grace is over; a player who logs in meanwhile is not.
func TestLoginGrace(t *testing.T) {
	const grace = time.Second
	ts := startServer(t, func(c *server.Config) { c.Limits.LoginGrace = grace })
	start := time.Now()
	silent := dialRaw(t, ts.addr, "")
	versioned := dialRaw(t, ts.addr, "")
	io.WriteString(versioned, "SSH-2.0-stalling\r\n")
	firstLine(t, versioned)
	// A client whose user never answers the (empty) keyboard-interactive
	// challenge: its connection is watched for the server's hang-up.
	unblock := make(chan struct{})
	defer close(unblock)
	stuck := &watchedConn{Conn: dialRaw(t, ts.addr, ""), closed: make(chan struct{})}
	go gossh.NewClientConn(stuck, ts.addr, &gossh.ClientConfig{
		User: "stuck", HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Auth: []gossh.AuthMethod{gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
			<-unblock
			return nil, nil
		})},
	})

	player := ts.dial(t, "p", newKey(t))
	if r := run(t, player, "help", ""); r.Code != 0 {
		t.Fatalf("help: %+v", r)
	}
	for name, c := range map[string]net.Conn{"silent": silent, "after the version": versioned} {
		// The upper bound is loose: a loaded machine (CI, -race) is late
		// with timers; the figure itself is the StalledConnections test's.
		if took := closedWithin(t, c, start, grace+3*time.Second); took < grace-100*time.Millisecond {
			t.Fatalf("%s connection closed after %v, before the grace of %v", name, took, grace)
		}
	}
	select {
	case <-stuck.closed:
	case <-time.After(time.Until(start.Add(grace + 3*time.Second))):
		t.Fatal("connection stalled in authentication still open after the grace")
	}
	if r := run(t, player, "help", ""); r.Code != 0 {
		t.Fatalf("help after the grace: %+v", r)
	}
	if n := strings.Count(ts.logs.String(), "login grace expired"); n != 3 {
		t.Fatalf("%d connections logged as expired, want 3", n)
	}
}

// watchedConn closes closed when a read fails: the peer hung up.
type watchedConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *watchedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.once.Do(func() { close(c.closed) })
	}
	return n, err
}

// TestCaps: a connection over a cap is refused at once with the reason.
func TestCaps(t *testing.T) {
	t.Run("total", func(t *testing.T) {
		ts := startServer(t, noCaps, func(c *server.Config) { c.Limits.MaxConns = 3 })
		a := admitted(t, ts.addr, "")
		admitted(t, ts.addr, "127.0.0.2")
		dialFrom(t, ts.addr, "127.0.0.3") // logged in: counts too
		refused(t, ts.addr, "127.0.0.4", "server is full")
		a.Close()
		waitFor(t, "the closed connection to be counted out", func() bool { return ts.srv.Connections() == 2 })
		admitted(t, ts.addr, "127.0.0.4")
		if !strings.Contains(ts.logs.String(), "reason=\"server full\"") {
			t.Fatal("refusal not logged")
		}
	})
	t.Run("unauthenticated per address", func(t *testing.T) {
		ts := startServer(t, noCaps, func(c *server.Config) { c.Limits.MaxUnauthPerIP = 2 })
		a := admitted(t, ts.addr, "127.0.0.1")
		b := admitted(t, ts.addr, "127.0.0.1")
		refused(t, ts.addr, "127.0.0.1", "logging in at once")
		admitted(t, ts.addr, "127.0.0.2") // another address
		a.Close()
		b.Close()
		waitFor(t, "the closed connections to be counted out", func() bool { return ts.srv.Connections() == 1 })
		// Logged-in connections do not count. A command on each makes sure
		// the server has finished its side of the login before the next
		// connection is counted.
		for range 4 {
			if r := run(t, dialFrom(t, ts.addr, "127.0.0.1"), "help", ""); r.Code != 0 {
				t.Fatalf("help: %+v", r)
			}
		}
		admitted(t, ts.addr, "127.0.0.1")
		admitted(t, ts.addr, "127.0.0.1")
		refused(t, ts.addr, "127.0.0.1", "logging in at once")
	})
	t.Run("sessions per connection", func(t *testing.T) {
		ts := startServer(t, func(c *server.Config) { c.Limits.MaxSessionsPerConn = 2 })
		c := ts.dial(t, "p", newKey(t))
		end := runningSession(t, c)
		// Sessions are counted when their channel opens, started or not.
		idle, _, err := c.OpenChannel("session", nil)
		if err != nil {
			t.Fatal(err)
		}
		refusedSession(t, c, "too many sessions on this connection")
		// A place is given back when a session ends, or when a channel
		// that never started closes.
		roomFor := func(what string) gossh.Channel {
			t.Helper()
			var ch gossh.Channel
			waitFor(t, what, func() bool {
				var err error
				ch, _, err = c.OpenChannel("session", nil)
				return err == nil
			})
			return ch
		}
		end()
		roomFor("the ended session to be counted out")
		refusedSession(t, c, "too many sessions on this connection")
		idle.Close()
		roomFor("the closed channel to be counted out")
	})
	t.Run("rate per address", func(t *testing.T) {
		ts := startServer(t, noCaps, func(c *server.Config) { c.Limits.ConnRatePerIP, c.Limits.ConnBurstPerIP = 2, 3 })
		for range 3 {
			admitted(t, ts.addr, "127.0.0.1").Close()
		}
		refused(t, ts.addr, "127.0.0.1", "too many connections from your address")
		admitted(t, ts.addr, "127.0.0.2")
		time.Sleep(600 * time.Millisecond) // one token back at 2 a second
		admitted(t, ts.addr, "127.0.0.1")
		refused(t, ts.addr, "127.0.0.1", "too many connections from your address")
	})
}

// tickingScreen redraws itself every 10 ms without any input, as the game
// screen does in autoplay.
type tickingScreen struct{ n int }

type tick struct{}

func (tickingScreen) Init() tea.Cmd {
	return tea.Tick(10*time.Millisecond, func(time.Time) tea.Msg { return tick{} })
}
func (m tickingScreen) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tick); ok {
		m.n++
		return m, m.Init()
	}
	return m, nil
}

// View changes every cell on every frame: a few kB a frame, so that the
// client acknowledges output (SSH window adjustments, sent every 96 kB by
// x/crypto) well within the idle timeout.
func (m tickingScreen) View() tea.View {
	line := strings.Repeat(string(rune('a'+m.n%26)), 99) + "\n"
	return tea.NewView(fmt.Sprintf("frame %d\n", m.n) + strings.Repeat(line, 40))
}

// TestIdleTickingScreen: a screen that keeps updating by itself, and a
// client that answers every keepalive and acknowledges every frame, still
// goes idle without input.
func TestIdleTickingScreen(t *testing.T) {
	const idle = time.Second
	ts := startServer(t, func(c *server.Config) {
		c.Limits.IdleTimeout = idle
		c.Limits.KeepaliveInterval = 50 * time.Millisecond
		c.TUI = func(ssh.Session, server.TUIEnv) tea.Model { return tickingScreen{} }
	})
	s, out, send := ptySession(t, ts.dial(t, "p", newKey(t)))
	start := time.Now()
	// Input keeps it open.
	for range 15 {
		time.Sleep(100 * time.Millisecond)
		send("x")
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case <-done:
		// The screen is told at the idle timeout; this one does not
		// quit when told, so it is stopped NoticeGrace later.
		took := time.Since(start)
		if took < 1500*time.Millisecond+idle-100*time.Millisecond || took > 1500*time.Millisecond+idle+server.NoticeGrace+2*time.Second {
			t.Fatalf("closed after %v, want about %v after the last key at 1.5 s, and the notice's grace", took, idle)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a ticking screen without input was not closed")
	}
	if n := len(out.String()); n < 300<<10 {
		t.Fatalf("%d bytes of output, want a screen that kept updating", n)
	}
	if !strings.Contains(ts.logs.String(), "idle timeout") {
		t.Fatal("idle timeout not logged")
	}
}

// TestKeepalive: a client that answers keepalives stays connected without
// input; one that stops answering is dropped after KeepaliveMax intervals.
func TestKeepalive(t *testing.T) {
	const interval = 100 * time.Millisecond
	ts := startServer(t, func(c *server.Config) { c.Limits.KeepaliveInterval, c.Limits.KeepaliveMax = interval, 3 })
	r := newRelay(t, ts.addr)
	c, err := gossh.Dial("tcp", r.Addr, &gossh.ClientConfig{
		User: "p", Auth: []gossh.AuthMethod{gossh.PublicKeys(newKey(t))},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(10 * interval) // keepalives sent and answered
	if r := run(t, c, "help", ""); r.Code != 0 {
		t.Fatalf("help after answering keepalives: %+v", r)
	}
	// Frozen right after a reply goes up, the client has answered every
	// request sent so far. The next request, an interval after the one it
	// answered, is the first unanswered; three intervals after that the
	// client is dropped: about four intervals after the freeze, never
	// much under. (Frozen at any moment instead, a request sent just
	// before could be the first unanswered, and the drop come anywhere
	// from three intervals after the freeze to four, so that a drop one
	// interval early would often pass.)
	time.Sleep(2 * interval) // the help session's last messages have gone up
	var frozen time.Time
	select {
	case frozen = <-r.FreezeAfterNextUp():
	case <-time.After(10 * interval):
		t.Fatal("no keepalive answered to freeze after")
	}
	select {
	case <-r.UpClosed:
		if took := time.Since(frozen); took < 3*interval+interval/2 || took > 5*interval+time.Second {
			t.Fatalf("dropped %v after the client went silent, want about %v", took, 4*interval)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a silent client was not dropped")
	}
	if !strings.Contains(ts.logs.String(), "keepalive timeout") {
		t.Fatal("keepalive timeout not logged")
	}
}
