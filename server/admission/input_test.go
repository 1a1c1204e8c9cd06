package admission_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// rawSession opens a session channel that starts nothing, and returns it
// with what the server writes on its stderr and the exit status it sends
// (-1 when the channel closes without one).
func rawSession(t *testing.T, c *gossh.Client) (gossh.Channel, *bytes.Buffer, <-chan int) {
	t.Helper()
	ch, reqs, err := c.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	var stderr bytes.Buffer
	var copied sync.WaitGroup
	copied.Go(func() { io.Copy(&stderr, ch.Stderr()) })
	status := make(chan int, 1)
	go func() {
		code := -1
		for req := range reqs {
			var s struct{ Status uint32 }
			if req.Type == "exit-status" && gossh.Unmarshal(req.Payload, &s) == nil {
				code = int(s.Status)
			}
		}
		copied.Wait()
		status <- code
	}()
	go io.Copy(io.Discard, ch)
	return ch, &stderr, status
}

// execChannel opens a session channel running cmd, read by the caller
// as it pleases; closed is closed once the server has closed it.
func execChannel(t *testing.T, c *gossh.Client, cmd string) (ch gossh.Channel, closed <-chan struct{}) {
	t.Helper()
	ch, reqs, err := c.OpenChannel("session", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.Close() })
	done := make(chan struct{})
	go func() {
		gossh.DiscardRequests(reqs)
		close(done)
	}()
	if ok, err := ch.SendRequest("exec", true, gossh.Marshal(struct{ Value string }{cmd})); !ok || err != nil {
		t.Fatalf("exec %s: %v, %v", cmd, ok, err)
	}
	return ch, done
}

// waitStatus waits for the exit status of a session, which must come
// within a few seconds.
func waitStatus(t *testing.T, status <-chan int, what string) int {
	t.Helper()
	select {
	case code := <-status:
		return code
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: the session was not closed", what)
		return 0
	}
}

// TestUnreadInputEndsTheSession: a client that gets more than
// session.MaxUnreadInput ahead of what its session reads has that session
// closed, with one line saying why and status 13: a session that has not
// started a command, a bot whose moves come faster than the server plays
// them, a bot waiting in a race's lobby. Left to the SSH library, each
// holds up to the channel's window, 2 MiB, and the client is never told.
func TestUnreadInputEndsTheSession(t *testing.T) {
	flood := strings.Repeat("up\n", 2*session.MaxUnreadInput/3)
	ts := startServer(t, func(c *server.Config) {
		c.Limits.LoginGrace = time.Minute // not the reason it ends
		c.Limits.BotRate = 50
	})
	c := ts.dial(t, "p", newKey(t))

	t.Run("before a command", func(t *testing.T) {
		ch, stderr, status := rawSession(t, c)
		// The server may close the channel before the whole flood is
		// written (it is past the bound half-way): the write then ends
		// with io.EOF, and the status says why.
		if _, err := io.WriteString(ch, flood); err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		if code := waitStatus(t, status, "before a command"); code != wire.ExitFlooded {
			t.Fatalf("status %d, want %d; stderr %q", code, wire.ExitFlooded, stderr)
		}
		if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "64 KiB") {
			t.Fatalf("stderr %q: want one line naming the bound", got)
		}
	})
	for _, cmd := range []string{"bot --size 8", "bot --race --room lonely"} { // 8×8: not over within the moves played
		t.Run(cmd, func(t *testing.T) {
			s, err := c.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var stderr bytes.Buffer
			s.Stdin, s.Stdout, s.Stderr = strings.NewReader(flood), io.Discard, &stderr
			done := make(chan error, 1)
			go func() { done <- s.Run(cmd) }()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: the session was not closed", cmd)
			}
			if code := servertest.ExitCode(t, err); code != wire.ExitFlooded {
				t.Fatalf("status %d, want %d; stderr %q", code, wire.ExitFlooded, stderr.String())
			}
			if got := stderr.String(); !strings.Contains(got, "64 KiB") {
				t.Fatalf("stderr %q: want the line naming the bound", got)
			}
		})
	}
	// The connection and its other sessions carry on.
	if r := run(t, c, "bot --size 3", "up\n"); r.Code != 0 || strings.Count(r.Stdout, "\n") != 2 {
		t.Fatalf("a bot after the floods: %+v", r)
	}
}

// TestUnreadInputHeldWhole: input a session has not read yet costs the
// server what was sent, however the client cuts it. The SSH library keeps
// each packet apart, with the packet's framing and a link to the next, so
// that a byte sent as a packet of its own cost about 50 bytes held.
func TestUnreadInputHeldWhole(t *testing.T) {
	const sessions, each = 4, 48 << 10 // below MaxUnreadInput: held, not closed
	ts := startServer(t, func(c *server.Config) { c.Limits.LoginGrace = time.Minute })
	c := ts.dial(t, "p", newKey(t))
	var chans []gossh.Channel
	for range sessions {
		ch, _, _ := rawSession(t, c)
		chans = append(chans, ch)
	}
	before := settledHeap(t)
	one := []byte{'x'}
	for _, ch := range chans {
		for range each {
			if _, err := ch.Write(one); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Every byte has reached the server once a request sent after it is
	// answered (the connection's packets are in order).
	if _, _, err := c.SendRequest("sync@ssh2048", true, nil); err != nil {
		t.Fatal(err)
	}
	sent := sessions * each
	grew := settledHeap(t) - before
	if grew > 8*int64(sent) {
		t.Fatalf("%d bytes sent a byte a packet grew the heap by %d bytes (%.0f a byte)", sent, grew, float64(grew)/float64(sent))
	}
}

// settledHeap is the live heap once it holds still: a server that has
// just started lets go of some megabytes in its first second.
func settledHeap(t *testing.T) int64 {
	t.Helper()
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	last := live()
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		now := live()
		if d := now - last; d > -256<<10 && d < 256<<10 {
			return now
		}
		last = now
	}
	t.Fatal("the heap did not settle")
	return 0
}

// TestClientStderrDropped: what a client sends as extended data (its
// stderr), which nothing on the server reads, is read and dropped as it
// comes. The SSH library kept it, and counted it against the channel's
// window for good: a client could make the server hold 2 MiB that way,
// and its session could then take no more input.
func TestClientStderrDropped(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "p", newKey(t))
	ch, _ := execChannel(t, c, "bot --size 3")
	out := bufio.NewReader(ch)
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatalf("the first state: %v", err)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := ch.Stderr().Write(make([]byte, 3<<20)) // more than the window
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client's stderr stalled: the server holds what it sent")
	}
	if _, err := io.WriteString(ch, "up\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, `"moves":`) {
		t.Fatalf("a move after the stderr: %q, %v", line, err)
	}
}

// TestFloodOfAClientThatTakesNothing: a client that floods a session
// while it takes none of the session's output has that session closed
// all the same, though the line saying why cannot reach it: the handler
// is stuck writing into a full SSH window, and so is the notice. Left
// waiting on the client, the session would live as long as the client
// keeps sending, with its input read and dropped.
func TestFloodOfAClientThatTakesNothing(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "p", newKey(t))
	ch, closed := execChannel(t, c, "bot --size 8")
	// Each line is answered with an error and the 8×8 board: what these
	// lines are answered with fills the channel's window many times over,
	// and the client reads none of it. Then comes more than a session may
	// hold unread, which the stuck handler cannot take.
	wrote := make(chan error, 1)
	go func() {
		_, err := io.WriteString(ch, strings.Repeat("x\n", session.MaxUnreadInput/2/2))
		if err == nil {
			time.Sleep(500 * time.Millisecond) // the window fills
			_, err = io.WriteString(ch, strings.Repeat("x\n", session.MaxUnreadInput))
		}
		wrote <- err
	}()
	select {
	case <-closed:
	case <-time.After(session.NoticeGrace + 10*time.Second):
		t.Fatal("the flooded session is still open")
	}
	if err := <-wrote; err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("the flood: %v", err)
	}
	waitFor(t, "the flood in the log", func() bool { return strings.Contains(ts.logs.String(), "input flood") })
	// The connection carries on.
	if r := run(t, c, "bot --size 3", "up\n"); r.Code != 0 || strings.Count(r.Stdout, "\n") != 2 {
		t.Fatalf("a bot after the flood: %+v", r)
	}
}
