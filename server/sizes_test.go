package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/db"
)

// screenOutput follows a game screen's output from a mark on.
type screenOutput struct {
	out  *syncBuffer
	mark int
}

// since is what the screen wrote after the last mark; mark moves it.
func (o *screenOutput) since() string       { return o.out.String()[o.mark:] }
func (o *screenOutput) markNow()            { o.mark = len(o.out.String()) }
func (o *screenOutput) shows(s string) bool { return strings.Contains(o.since(), s) }

// storedMoves is the number of moves stored in the player's unfinished
// human game of size n, -1 if there is none.
func storedMoves(t *testing.T, ts *testServer, key gossh.Signer, n int) int {
	t.Helper()
	ctx := context.Background()
	p, err := ts.store.UpsertPlayer(ctx, gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "p")
	if err != nil {
		t.Fatal(err)
	}
	games, err := ts.store.PlayerGames(ctx, p.ID, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range games {
		if g.Size == n && g.Kind == db.KindHuman && g.EndedAt == nil {
			return g.Moves
		}
	}
	return -1
}

// TestTakeoverOnlySameSize: a second session of the same key takes over
// only the game of the size it opens. A session that left 4×4 for 6×6
// keeps playing when the other opens 4×4, and is taken over, with its
// size named, when the other opens 6×6.
func TestTakeoverOnlySameSize(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	sessA, outA, sendA := ptySession(t, ts.dial(t, "p", key))
	a := &screenOutput{out: outA}
	waitFor(t, "the game screen", func() bool { return a.shows("Moves") })
	arrows := []string{"\x1b[D", "\x1b[A", "\x1b[C", "\x1b[B"}

	// A plays 4×4 last, then goes to 6×6.
	for i := 0; storedMoves(t, ts, key, 4) < 2; i++ {
		if i > 40 {
			t.Fatal("no 4×4 moves stored")
		}
		sendA(arrows[i%4])
		time.Sleep(20 * time.Millisecond)
	}
	a.markNow()
	sendA("6")
	waitFor(t, "A on 6×6", func() bool { return a.shows("6×6") })

	// B reconnects to the size played last, 4×4: A keeps its 6×6 game.
	sessB, outB, sendB := ptySession(t, ts.dial(t, "p", key))
	b := &screenOutput{out: outB}
	waitFor(t, "B's screen", func() bool { return b.shows("Moves") })
	if !b.shows("4×4") || b.shows("6×6") {
		t.Fatalf("B did not open the size played last, 4×4: %q", b.since())
	}
	before := storedMoves(t, ts, key, 6)
	for i := 0; storedMoves(t, ts, key, 6) < before+2; i++ {
		if i > 40 {
			t.Fatalf("A can no longer move on 6×6 once B opened 4×4: %q", a.since())
		}
		sendA(arrows[i%4])
		time.Sleep(20 * time.Millisecond)
	}
	if a.shows("newer session") {
		t.Fatalf("A was told of a takeover: %q", a.since())
	}

	// B opens 6×6: now A's game is taken over.
	sendB("6")
	done := make(chan int, 1)
	go func() { done <- exitCode(t, sessA.Wait()) }()
	select {
	case code := <-done:
		if code != 3 || !a.shows("Your 6×6 game was opened in a newer session") {
			t.Fatalf("A: exit %d, output %q", code, a.since())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("B opening 6×6 did not take A's 6×6 game over")
	}
	sendB("q")
	if code := exitCode(t, sessB.Wait()); code != 0 {
		t.Fatalf("B exit %d", code)
	}
}

// TestReconnectOpensLastSize: a player who played 5×5 last finds 5×5
// when they come back, not 4×4.
func TestReconnectOpensLastSize(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	s, out, send := ptySession(t, ts.dial(t, "p", key))
	o := &screenOutput{out: out}
	waitFor(t, "the game screen", func() bool { return o.shows("Moves") })
	send("5")
	for i := 0; storedMoves(t, ts, key, 5) < 1; i++ {
		if i > 40 {
			t.Fatal("no 5×5 move stored")
		}
		send([]string{"\x1b[D", "\x1b[A", "\x1b[C", "\x1b[B"}[i%4])
		time.Sleep(20 * time.Millisecond)
	}
	if code := quitScreen(t, s, send); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s2, out2, send2 := ptySession(t, ts.dial(t, "p", key))
	o2 := &screenOutput{out: out2}
	waitFor(t, "the game screen again", func() bool { return o2.shows("Moves") })
	if !o2.shows("5×5") || o2.shows("4×4") {
		t.Fatalf("reconnected to another size than 5×5: %q", o2.since())
	}
	quitScreen(t, s2, send2)
}
