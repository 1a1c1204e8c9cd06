package server_test

import (
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/wire"
)

// leftTerminal checks what a game screen wrote last: the terminal put
// back (pen, alternate screen, cursor, window title), then the line,
// and returns the text after the alternate screen was left.
func leftTerminal(t *testing.T, out string) string {
	t.Helper()
	leave := strings.LastIndex(out, "\x1b[?1049l")
	if leave < 0 {
		t.Fatalf("the alternate screen was never left: %q", out)
	}
	if !strings.HasSuffix(out[:leave], "\x1b[m") {
		t.Errorf("the pen is not reset before leaving the alternate screen: %q", out[max(0, leave-20):])
	}
	after := out[leave+len("\x1b[?1049l"):]
	restore := "\x1b[?25h\x1b[23;0t"
	if !strings.HasPrefix(after, restore) {
		t.Fatalf("after leaving the alternate screen: %q, want the cursor shown and the title popped first (%q)", after, restore)
	}
	return after[len(restore):]
}

// TestIdleEndsTheScreen: the idle timeout ends a game screen through the
// screen, not by closing the connection under it: the player's terminal
// is restored, one line says why, and the exit status says so too.
func TestIdleEndsTheScreen(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Limits.IdleTimeout = time.Second })
	s, out, _ := ptySession(t, ts.dial(t, "p", newKey(t)))
	waitFor(t, "the game screen", func() bool { return strings.Contains(out.String(), "Moves") })
	code := exitCode(t, s.Wait())
	if code != wire.ExitInactive {
		t.Errorf("exit status %d, want 9 (closed for inactivity)", code)
	}
	line := leftTerminal(t, out.String())
	if want := "No input for 1 second, so the server closed this session."; !strings.Contains(line, want) {
		t.Errorf("last line %q, want it to say %q", line, want)
	}
	if strings.Count(strings.TrimRight(line, "\r\n"), "\r\n") > 1 {
		t.Errorf("the last line is more than a line or two at 100 columns: %q", line)
	}
}

// TestKeepaliveLossEndsTheScreen: a client that stops answering
// keepalives but still reads (a client stuck, or a one-way network) gets
// its screen ended the same way: terminal restored, a line, status 9.
func TestKeepaliveLossEndsTheScreen(t *testing.T) {
	const interval = 100 * time.Millisecond
	ts := startServer(t, func(c *server.Config) { c.Limits.KeepaliveInterval, c.Limits.KeepaliveMax = interval, 2 })
	r := newRelay(t, ts.addr)
	c, err := gossh.Dial("tcp", r.Addr, &gossh.ClientConfig{
		User: "p", Auth: []gossh.AuthMethod{gossh.PublicKeys(newKey(t))},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, out, _ := ptySession(t, c)
	waitFor(t, "the game screen", func() bool { return strings.Contains(out.String(), "Moves") })
	time.Sleep(5 * interval) // keepalives answered: the screen stays
	r.Muted.Store(true)      // the server hears nothing more from the client
	done := make(chan int, 1)
	go func() { done <- exitCode(t, s.Wait()) }()
	select {
	case code := <-done:
		if code != wire.ExitInactive {
			t.Errorf("exit status %d, want 9", code)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the screen of a client that stopped answering was not ended")
	}
	line := leftTerminal(t, out.String())
	if !strings.Contains(line, "Your connection stopped answering") {
		t.Errorf("last line %q, want it to say the connection stopped answering", line)
	}
	if !strings.Contains(ts.logs.String(), "keepalive timeout") {
		t.Error("keepalive timeout not logged")
	}
}
