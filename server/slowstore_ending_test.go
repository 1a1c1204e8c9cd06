package server_test

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/wire"
)

// TestShutdownWhileAMoveCommitsRestoresTheTerminal: the server restarts
// while a player's move waits for its commit (another process holds the
// database's write lock: a backup, the sqlite3 shell; or a slow fsync).
// The screen holds the restart notice behind the move, so the server
// abandons it when the notice's grace runs out: the terminal must still be
// given back, with the line that says why, and the session must end
// within the grace, not when the store frees. It used to end seconds
// later (the seat's Close waited for the Play's lock, which the commit
// holds), in the alternate screen with the cursor hidden and no line.
func TestShutdownWhileAMoveCommitsRestoresTheTerminal(t *testing.T) {
	ts := startServer(t)
	s, out, send := ptySession(t, ts.dial(t, "ann", newKey(t)))
	waitFor(t, "the game screen", func() bool { return strings.Contains(out.String(), "Moves") })

	// The lock is held for 5 s (a backup of a large database), far longer
	// than the notice's grace.
	holdWriteLock(t, ts, 5*time.Second)

	// Each of the four arrows: at least one moves the board, and its
	// commit waits; the keys after it wait for it.
	send("\x1b[D\x1b[A\x1b[C\x1b[B")
	time.Sleep(300 * time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	told := time.Now()
	go ts.srv.Shutdown(ctx) //nolint:errcheck // the session's end is what is checked

	done := make(chan int, 1)
	go func() { done <- exitCode(t, s.Wait()) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the session did not end within 15 s of the shutdown")
	}
	if took := time.Since(told); took > server.NoticeGrace+time.Second {
		t.Errorf("the session ended %v after the shutdown's notice, not within its grace (%v): it waited for the store", took.Round(10*time.Millisecond), server.NoticeGrace)
	}
	if code != wire.ExitRestart {
		t.Errorf("exit status %d, want %d (the server is restarting)", code, wire.ExitRestart)
	}
	o := out.String()
	if !strings.Contains(o, "\x1b[?1049l") || !strings.Contains(o, "restarting") {
		t.Fatalf("the terminal was not given back (alternate screen left: %v, cursor shown: %v) and no line says the server is restarting; the session's last bytes: %q",
			strings.Contains(o, "\x1b[?1049l"), strings.Contains(o, "\x1b[?25h"), o[max(0, len(o)-80):])
	}
	leftTerminal(t, o)
}

// holdWriteLock takes the database's write lock from another connection,
// as a backup or the sqlite3 shell does, and lets it go after d: the
// server's commits wait for it meanwhile (busy_timeout).
func holdWriteLock(t *testing.T, ts *testServer, d time.Duration) {
	t.Helper()
	other, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: ts.store.Path()}).EscapedPath()+"?_txlock=immediate&_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(d)
		tx.Rollback() //nolint:errcheck // only the lock matters
	}()
}
