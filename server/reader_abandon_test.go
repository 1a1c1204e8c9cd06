package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/wire"
)

// TestReaderAbandonSaysOneLine: on the screen for screen readers, a
// session ends with one last line, as every other line it says
// (docs/screen-reader.md: "Every way the session ends leaves one last
// line"). When the server restarts while a move waits for its commit, the
// screen holds the notice behind the move and the server abandons it
// after the notice's grace (screen.Abandon), which wrote an empty line
// before the last one for a Liner: a screen reader reads it out as
// "blank", a line that says nothing.
func TestReaderAbandonSaysOneLine(t *testing.T) {
	ts := startServer(t)
	sess, out, send := readerSession(t, ts.dial(t, "ann", newKey(t)), "")
	waitFor(t, "the greeting", func() bool { return strings.Contains(out.String(), "Press ? for the keys.\r\n") })

	// Another connection holds the database's write lock (a backup, the
	// sqlite3 shell): the move's commit waits for it.
	holdWriteLock(t, ts, 3*time.Second)
	send("adws") // at least one of them moves, and its commit waits
	time.Sleep(300 * time.Millisecond)

	restartEndsWith(t, ts, sess, out, "restarting; your game is saved. Reconnect in a moment to carry on.")
}

// restartEndsWith restarts the server under a reader's session and
// checks how the session ends: the restart's exit status, and one last
// line that ends with last, with no empty line before it and not one
// escape sequence in all the session wrote.
func restartEndsWith(t *testing.T, ts *testServer, sess *gossh.Session, out *syncBuffer, last string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go ts.srv.Shutdown(ctx) //nolint:errcheck // the session's end is what is checked
	if code := exitCode(t, sess.Wait()); code != wire.ExitRestart {
		t.Errorf("exit status %d, want %d", code, wire.ExitRestart)
	}
	text := out.String()
	if !strings.HasSuffix(text, last+"\r\n") {
		t.Fatalf("the session does not end with the restart's line: %q", text[max(0, len(text)-200):])
	}
	if strings.Contains(text, "\r\n\r\n") || strings.ContainsRune(text, '\x1b') {
		t.Errorf("the transcript says an empty line (or holds an escape sequence) before its last line: %q", text[max(0, len(text)-160):])
	}
}
