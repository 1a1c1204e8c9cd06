package server_test

import (
	"context"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// TestLocalPlayTakesOverAtOnce: a game held by an SSH session and opened
// by another process on the same SQLite file (`ssh2048 play`: its own
// store and game service) ends the SSH session at once, as a second SSH
// session does: status 3 and the takeover line, no key pressed. And the
// SSH session's move, had it come first, is refused rather than stored
// behind the newer session's back.
func TestLocalPlayTakesOverAtOnce(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	sess, out, send := ptySession(t, ts.dial(t, "p", key))
	o := &screenOutput{out: out}
	waitFor(t, "the game screen", func() bool { return o.shows("Moves") })
	moveUntilStored(t, ts, key, 4, 2, send)
	done := make(chan int, 1)
	go func() { done <- exitCode(t, sess.Wait()) }()

	// The other process: a store and a service of its own on the file.
	ctx := context.Background()
	local, err := sqlite.Open(ctx, ts.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	svc := game.New(local, nil)
	player, err := svc.Identify(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "p")
	if err != nil {
		t.Fatal(err)
	}
	seat := svc.Seat(player, nil)
	t.Cleanup(seat.Close)
	p, err := seat.Resume(ctx, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.Moves() < 2 {
		t.Fatalf("the other process opened a game of %d moves, want the SSH session's", p.Moves())
	}

	select {
	case code := <-done:
		if code != 3 || !o.shows("Your 4×4 game was opened in a newer session") {
			t.Fatalf("SSH session: exit %d, output %q", code, o.since())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the SSH session still runs 10 s after another process took its game over: %q", o.since())
	}
}
