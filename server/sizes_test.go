package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/store"
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
		if g.Size == n && g.Kind == store.KindHuman && g.EndedAt == nil {
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

// moveUntilStored presses arrows in a session until n moves of its
// player's human game of size are stored.
func moveUntilStored(t *testing.T, ts *testServer, key gossh.Signer, size, n int, send func(string)) {
	t.Helper()
	arrows := []string{"\x1b[D", "\x1b[A", "\x1b[C", "\x1b[B"}
	for i := 0; storedMoves(t, ts, key, size) < n; i++ {
		if i > 40 {
			t.Fatalf("no %d moves stored on %d×%d", n, size, size)
		}
		send(arrows[i%4])
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSecondWindowOtherSize: a second session of a key, while the first
// shows the size played last, opens the size played before it, and the
// first plays on.
func TestSecondWindowOtherSize(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	sessA, outA, sendA := ptySession(t, ts.dial(t, "p", key))
	a := &screenOutput{out: outA}
	waitFor(t, "the game screen", func() bool { return a.shows("Moves") })
	sendA("5")
	waitFor(t, "A on 5×5", func() bool { return a.shows("5×5") })
	moveUntilStored(t, ts, key, 5, 1, sendA)
	sendA("4")
	waitFor(t, "A back on 4×4", func() bool { return a.shows("4×4") })
	moveUntilStored(t, ts, key, 4, 1, sendA)
	a.markNow()

	sessB, outB, sendB := ptySession(t, ts.dial(t, "p", key))
	b := &screenOutput{out: outB}
	waitFor(t, "B's screen", func() bool { return b.shows("Moves") })
	if !b.shows("5×5") || b.shows("4×4") {
		t.Fatalf("B did not open 5×5, the size played last that no window shows: %q", b.since())
	}
	moveUntilStored(t, ts, key, 4, storedMoves(t, ts, key, 4)+1, sendA)
	if a.shows("newer session") {
		t.Fatalf("A was taken over: %q", a.since())
	}
	if code := quitScreen(t, sessB, sendB); code != 0 {
		t.Fatalf("B exit %d", code)
	}
	if code := quitScreen(t, sessA, sendA); code != 0 {
		t.Fatalf("A exit %d", code)
	}
}

// TestPlaySizeCommand: `play --size N` opens the game screen at N; `play`
// alone at the size played last; without a terminal, or with a size out
// of range, it says why.
func TestPlaySizeCommand(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	c := ts.dial(t, "p", key)
	s, out, send := ptyCommand(t, c, 100, 30, "play --size 6")
	o := &screenOutput{out: out}
	waitFor(t, "the game screen", func() bool { return o.shows("Moves") })
	if !o.shows("6×6") {
		t.Fatalf("play --size 6 opened another size: %q", o.since())
	}
	if code := quitScreen(t, s, send); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s, out, send = ptyCommand(t, c, 100, 30, "play")
	o = &screenOutput{out: out}
	waitFor(t, "the game screen", func() bool { return o.shows("Moves") })
	if !o.shows("6×6") {
		t.Fatalf("play did not open the size opened last, 6×6: %q", o.since())
	}
	if code := quitScreen(t, s, send); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, tt := range []struct{ cmd, stderr string }{
		{"play", "play opens a screen and needs a terminal: connect with `ssh -t`"},
		{"play --size 9", "play: --size 9: must be 3 to 8"},
		{"play 6", `unexpected argument "6"`},
	} {
		r := run(t, c, tt.cmd, "")
		if r.code != 2 || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("%s: %+v, want exit 2 and %q", tt.cmd, r, tt.stderr)
		}
	}
	if r := run(t, c, "help", ""); !strings.Contains(r.stdout, "play [--size N]") {
		t.Errorf("help does not list play: %q", r.stdout)
	}
}

// TestSwitchedSizeRemembered: a size switched to is the size the next
// session opens, even with no move made on it.
func TestSwitchedSizeRemembered(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	s, out, send := ptySession(t, ts.dial(t, "p", key))
	o := &screenOutput{out: out}
	waitFor(t, "the game screen", func() bool { return o.shows("Moves") })
	moveUntilStored(t, ts, key, 4, 1, send)
	o.markNow()
	send("7")
	waitFor(t, "7×7", func() bool { return o.shows("7×7") })
	if code := quitScreen(t, s, send); code != 0 {
		t.Fatalf("exit %d", code)
	}
	s, out, send = ptySession(t, ts.dial(t, "p", key))
	o = &screenOutput{out: out}
	waitFor(t, "the game screen again", func() bool { return o.shows("Moves") })
	if !o.shows("7×7") {
		t.Fatalf("reconnected to another size than 7×7, switched to last: %q", o.since())
	}
	quitScreen(t, s, send)
}
