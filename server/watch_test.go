package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/wire"
)

// answers drops what a virtual terminal answers to queries, until the
// test ends. (Not Emulator.Close: it races with the reader.)
func answers(t *testing.T, term *vt.Emulator) {
	go io.Copy(io.Discard, term) //nolint:errcheck // ends when the pipe is closed
	t.Cleanup(func() { term.InputPipe().(*io.PipeWriter).Close() })
}

func contains(s string) func(string) bool {
	return func(t string) bool { return strings.Contains(t, s) }
}

// boardOn is the numbers a screen shows on its board, row by row: the
// lines without words.
func boardOn(screen string) string {
	var rows []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.IndexFunc(l, unicode.IsLetter) >= 0 {
			continue
		}
		if f := strings.Fields(l); len(f) > 0 {
			rows = append(rows, strings.Join(f, " "))
		}
	}
	return strings.Join(rows, "/")
}

// waitForBoard waits until the screen shows text and board b together,
// and returns it; it fails the test when they never do. A screen is read
// as its bytes come, so a frame can be seen half drawn: its header
// changed, its board not yet.
func waitForBoard(v *vtScreen, text string, b [][]int) string {
	v.t.Helper()
	want := boardOf(b)
	return v.waitUntil(fmt.Sprintf("%q with the board %s", text, want), func(s string) bool {
		return strings.Contains(s, text) && boardOn(s) == want
	})
}

// boardOf is what boardOn reads off a screen of a bot state's board.
func boardOf(b [][]int) string {
	var rows []string
	for _, r := range b {
		var row []string
		for _, v := range r {
			if v != 0 {
				row = append(row, strconv.Itoa(v))
			}
		}
		if len(row) > 0 {
			rows = append(rows, strings.Join(row, " "))
		}
	}
	return strings.Join(rows, "/")
}

// TestSpectatorSeesEveryMove: over real SSH, a guest watching a player
// by name sees each of the player's moves, in order, with the board,
// score and move count the player got.
func TestSpectatorSeesEveryMove(t *testing.T) {
	ts := startServer(t)
	player := startBot(t, ts.dial(t, "ann", newKey(t)), "--size 4")
	st := player.mustRead()
	spec := openScreen(t, ts.dialGuest(t), "watch ann", 100, 30)
	first := spec.waitUntil("the game", contains("Moves 0 "))
	if !strings.Contains(first, "2048 ann 4×4 bot ● live") || !strings.Contains(first, "1 watching") {
		t.Fatalf("the spectator's first screen:\n%s", first)
	}
	seen := 0
	for i := 0; seen < 30; i++ {
		d := engine.Directions()[i%4]
		player.send(d.String())
		st = player.mustRead()
		if !st.Moved {
			continue
		}
		seen++
		screen := waitForBoard(spec, fmt.Sprintf("Moves %d ", st.Moves), st.Board)
		if !strings.Contains(screen, fmt.Sprintf("Score %d", st.Score)) {
			t.Fatalf("after move %d the spectator sees\n%s\nwant score %d", st.Moves, screen, st.Score)
		}
	}
	player.finish()
	// No one watches a game no longer played: the count goes with the
	// player rather than stay as it was.
	if left := spec.waitUntil("the player leaving", contains("ann left; here is the last board.")); strings.Contains(left, "watching") {
		t.Fatalf("the spectator's screen counts spectators of a game its player left:\n%s", left)
	}
	spec.send("q")
	if code := spec.wait(); code != wire.ExitOK {
		t.Fatalf("the spectator's exit status %d", code)
	}
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// windowSize is the channel window x/crypto/ssh's client grants, and
// never grows while the channel is not read: a server can send a channel
// that much and no more until its reader reads.
const windowSize = 2 << 20

// TestStalledSpectatorDoesNotDelayThePlayer: a spectator that reads
// nothing (its channel's window runs out, and the server's writes to it
// wait) never holds up the player it watches; when it reads again it
// gets the newest board, not every board it missed.
func TestStalledSpectatorDoesNotDelayThePlayer(t *testing.T) {
	ts := startServer(t)
	player := startBot(t, ts.dial(t, "bo", newKey(t)), "--size 8")
	player.mustRead()

	// The spectator's connection counts what reaches it: once that is
	// past the window, the server is stuck writing to it.
	raw, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingConn{Conn: raw}
	cc, chans, reqs, err := gossh.NewClientConn(counted, ts.addr, &gossh.ClientConfig{
		User: "viewer", Auth: []gossh.AuthMethod{gossh.PublicKeys(newKey(t))},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := gossh.NewClient(cc, chans, reqs)
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// True colour and a large window: large frames, to outgrow the
	// window sooner.
	if err := s.Setenv("COLORTERM", "truecolor"); err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 60, 160, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out, err := s.StdoutPipe() // not read until the player is done
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("watch bo"); err != nil {
		t.Fatal(err)
	}

	// The player plays a corner strategy; meanwhile the spectator's
	// window changes size again and again, each time a whole new frame
	// of a large board. Once the spectator is stalled the player plays
	// on, timed.
	stop := make(chan struct{})
	resizer := make(chan struct{})
	go func() {
		defer close(resizer)
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-time.After(55 * time.Millisecond):
			}
			if err := s.WindowChange(60-n%2, 160-n%2); err != nil {
				return
			}
		}
	}()
	const afterStall = 300
	var (
		stalledAt = -1
		latencies []time.Duration // of the moves after the stall
		last      state
	)
	played := make(chan struct{})
	go func() {
		defer close(played)
		for stalledAt < 0 || last.Moves < stalledAt+afterStall {
			for _, d := range []string{"down", "left", "right", "up"} {
				t0 := time.Now()
				player.send(d)
				last = player.mustRead()
				if last.Moved {
					if stalledAt >= 0 {
						latencies = append(latencies, time.Since(t0))
					}
					break
				}
			}
			if last.Over {
				return
			}
			if stalledAt < 0 && counted.n.Load() > windowSize {
				stalledAt = last.Moves
			}
		}
	}()
	select {
	case <-played:
	case <-time.After(3 * time.Minute):
		t.Fatalf("the player is held up: %d moves, stalled since move %d, %d bytes to the spectator", last.Moves, stalledAt, counted.n.Load())
	}
	close(stop)
	<-resizer
	if stalledAt < 0 || len(latencies) < afterStall {
		t.Fatalf("the game ended (%d moves) before the spectator stalled and %d moves more", last.Moves, afterStall)
	}
	slices.Sort(latencies)
	t.Logf("%d moves after the spectator stalled at move %d (%d bytes sent to it): reply p50 %v, p99 %v, max %v",
		len(latencies), stalledAt, counted.n.Load(), latencies[len(latencies)/2], latencies[len(latencies)*99/100], latencies[len(latencies)-1])

	// The spectator reads again: it catches up with the last board.
	term := vt.NewEmulator(160, 60)
	answers(t, term)
	var mu sync.Mutex
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := out.Read(buf)
			mu.Lock()
			term.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	want := fmt.Sprintf("Moves %d ", last.Moves)
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		screen := term.String()
		mu.Unlock()
		if strings.Contains(screen, want) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the spectator never showed the last move (%q):\n%s", want, screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	player.finish()
}

// TestWatchCommandsBadInput: what a spectator mistyped, or asked of a
// game no one plays, gets one clear line on stderr and its status,
// never a screen.
func TestWatchCommandsBadInput(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Limits.SessionRatePerConn = 0 })
	c := ts.dial(t, "cy", newKey(t))
	// An ended game and one left in play.
	b := startBot(t, c, "--size 3")
	st := b.mustRead()
	for i := 0; !st.Over; i++ {
		b.send(engine.Directions()[i%4].String())
		st = b.mustRead()
	}
	b.wait()
	b = startBot(t, c, "--size 4")
	b.mustRead()
	b.send("left")
	b.mustRead()
	b.send("up")
	b.mustRead()
	b.finish()
	var rows []wire.ScoreEntry
	for _, size := range []int{3, 4} {
		var r []wire.ScoreEntry
		out := run(t, c, fmt.Sprintf("scores --bots --size %d --json", size), "")
		if err := json.Unmarshal([]byte(out.stdout), &r); err != nil || len(r) != 1 {
			t.Fatalf("scores: %v %q", err, out.stdout)
		}
		rows = append(rows, r[0])
	}
	ended, left := rows[0].GameID, rows[1].GameID

	inPTY := func(cmd string) result {
		t.Helper()
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
		var out, errOut strings.Builder
		s.Stdout, s.Stderr = &out, &errOut
		code := exitCode(t, s.Run(cmd))
		// Wrapped at spaces to the window: the words are what count.
		return result{out.String(), strings.Join(strings.Fields(errOut.String()), " "), code}
	}
	for _, tc := range []struct {
		cmd  string
		code int
		want string
	}{
		{"watch nobody", wire.ExitNotFound, `no one named "nobody" is playing right now`},
		{"watch cy", wire.ExitNotFound, `no one named "cy" is playing right now`}, // a player with no game in play
		{"watch '#abcdef'", wire.ExitNotFound, `no player whose tag is "#abcdef" is playing right now`},
		{"watch 99999", wire.ExitNotFound, "there is no game 99999"},
		{fmt.Sprintf("watch %d", ended), wire.ExitNotFound, fmt.Sprintf("game %d has ended; `replay %d` shows it", ended, ended)},
		{fmt.Sprintf("watch %d", left), wire.ExitNotFound, fmt.Sprintf("no one is playing game %d right now; `replay %d` shows it up to its last move", left, left)},
		{"watch", wire.ExitUsage, "want one argument"},
		{"watch a b", wire.ExitUsage, "want one argument"},
		{"watch \x1b[31mred", wire.ExitNotFound, `no one named "\x1b[31mred"`}, // quoted, escaped
		{"replay 99999", wire.ExitNotFound, "there is no game 99999"},
		{"replay x", wire.ExitUsage, "not a game id"},
		{"tv --size 9", wire.ExitUsage, "--size 9: must be 3 to 8"},
		{"tv extra", wire.ExitUsage, `unexpected argument "extra"`},
		{"history extra", wire.ExitUsage, `unexpected argument "extra"`},
		{fmt.Sprintf("export %d", left), wire.ExitInPlay, "still being played"},
	} {
		r := inPTY(tc.cmd)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d and %q", tc.cmd, r.code, r.stdout, r.stderr, tc.code, tc.want)
		}
		if strings.Contains(r.stderr, "\x1b") {
			t.Errorf("%s: the message echoes an escape sequence: %q", tc.cmd, r.stderr)
		}
	}
	// Without a terminal: how to get one.
	for _, cmd := range []string{"watch cy", "tv", fmt.Sprintf("replay %d", ended), "history"} {
		if r := run(t, c, cmd, ""); r.code != wire.ExitUsage || !strings.Contains(r.stderr, "needs a terminal: connect with `ssh -t`") {
			t.Errorf("%s without a PTY: %+v", cmd, r)
		}
	}
	// A guest has no history.
	s, err := ts.dialGuest(t).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	s.Stderr = &errOut
	if code := exitCode(t, s.Run("history")); code != wire.ExitNotFound || !strings.Contains(errOut.String(), "guests' games are not kept") {
		t.Errorf("a guest's history: %d %q", code, errOut.String())
	}
}

// TestPlayerSeesSpectators: the player's header counts spectators as
// they come and go, without a key from the player.
func TestPlayerSeesSpectators(t *testing.T) {
	ts := startServer(t)
	player := openScreen(t, ts.dial(t, "di", newKey(t)), "", 80, 24)
	player.waitUntil("the game", contains("Moves 0"))
	spec := openScreen(t, ts.dial(t, "viewer", newKey(t)), "watch di", 80, 24)
	spec.waitUntil("the game", contains("2048 di 4×4 ● live"))
	player.waitUntil("the count", contains("Moves 0   1 watching"))
	guest := openScreen(t, ts.dialGuest(t), "watch di", 80, 24)
	guest.waitUntil("the game", contains("2 watching"))
	player.waitUntil("the count", contains("Moves 0   2 watching"))
	guest.send("q")
	guest.wait()
	spec.send("q")
	if code := spec.wait(); code != wire.ExitOK {
		t.Fatalf("the spectator's exit status %d", code)
	}
	player.waitUntil("no count", func(s string) bool { return strings.Contains(s, "Moves 0") && !strings.Contains(s, "watching") })
	player.send("q")
	player.wait()
}

// TestReplayCommand: `replay GAME` opens the replay of a stored game,
// steps through it and quits with status 0.
func TestReplayCommand(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "eve", newKey(t))
	b := startBot(t, c, "--size 3")
	states := []state{b.mustRead()}
	for i := 0; !states[len(states)-1].Over; i++ {
		b.send(engine.Directions()[rand.IntN(4)].String())
		if st := b.mustRead(); st.Moved {
			states = append(states, st)
		}
	}
	b.wait()
	var rows []wire.ScoreEntry
	out := run(t, c, "scores --bots --size 3 --json", "")
	if err := json.Unmarshal([]byte(out.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("scores: %v %q", err, out.stdout)
	}
	last := len(states) - 1
	rp := openScreen(t, ts.dialGuest(t), fmt.Sprintf("replay %d", rows[0].GameID), 80, 24)
	rp.waitUntil("the start", contains(fmt.Sprintf("Move 0/%d", last)))
	for _, step := range []struct {
		keys string
		at   int
	}{{"\x1b[C", 1}, {"ll", 3}, {"h", 2}, {"G", last}, {"g", 0}, {":5\r", 5}} {
		i := step.at
		rp.send(step.keys)
		screen := waitForBoard(rp, fmt.Sprintf("Move %d/%d", i, last), states[i].Board)
		if !strings.Contains(screen, fmt.Sprintf("Score %d", states[i].Score)) {
			t.Fatalf("move %d shows\n%s\nwant score %d", i, screen, states[i].Score)
		}
	}
	rp.send("q")
	if code := rp.wait(); code != wire.ExitOK {
		t.Fatalf("exit %d", code)
	}
}

// TestWatchDailyHidden: a game of today's daily challenge in play is not
// shown (everyone plays the day on the same tiles): watch and replay say
// so, with status 7.
func TestWatchDailyHidden(t *testing.T) {
	ts := startServer(t, func(c *server.Config) { c.Limits.SessionRatePerConn = 0 })
	ann := ts.dial(t, "ann", newKey(t))
	scr := openScreen(t, ann, "daily --size 3", 80, 24)
	scr.waitUntil("the daily", contains("Daily "))
	scr.send("\x1b[D\x1b[A\x1b[C\x1b[B")
	scr.waitUntil("a move", contains("Streak 1"))
	var rows []wire.ScoreEntry
	out := run(t, ann, "scores --daily --size 3 --json", "")
	if err := json.Unmarshal([]byte(out.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("scores --daily: %v %q", err, out.stdout)
	}
	id := strconv.FormatInt(rows[0].GameID, 10)
	viewer := ts.dial(t, "viewer", newKey(t))
	for _, tc := range []struct{ cmd, want string }{
		{"watch ann", `"ann" is playing today's daily challenge`},
		{"watch " + id, "game " + id + " is of today's daily challenge"},
		{"replay " + id, "game " + id + " is of today's daily challenge; everyone plays the day on the same tiles"},
	} {
		s, err := viewer.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
		var errOut strings.Builder
		s.Stderr = &errOut
		code := exitCode(t, s.Run(tc.cmd))
		s.Close()
		if code != wire.ExitInPlay || !strings.Contains(strings.Join(strings.Fields(errOut.String()), " "), tc.want) {
			t.Errorf("%s: exit %d, %q; want %d and %q", tc.cmd, code, errOut.String(), wire.ExitInPlay, tc.want)
		}
	}
	// From the game screen's leaderboard, today's daily board: enter on
	// ann's row says why in one sentence, not with the error's chain.
	game := openScreen(t, viewer, "", 80, 24)
	game.waitUntil("the game", contains("Moves 0"))
	game.send("\t")
	game.waitUntil("the leaderboard", contains("[all time]"))
	game.send("\x1b[C3")
	game.waitUntil("today's daily board", func(s string) bool { return strings.Contains(s, "[today's daily]") && strings.Contains(s, "ann") })
	game.send("\r")
	said := game.waitUntil("why not", contains("That game is part of today's daily challenge; it can be replayed once the day"))
	if strings.Contains(said, "Could not load") || strings.Contains(said, "game "+id) {
		t.Fatalf("enter on a daily row:\n%s", said)
	}
	game.send("q")
	game.wait()
	scr.send("q")
	scr.wait()
}

// TestTVOverSSH: TV over real SSH (the session's loop waits for the game
// on screen, and for the one it switches to): it waits while no one
// plays, shows the only game, moves to a game that overtakes it, and
// keeps the last board when the game ends and no other is on.
func TestTVOverSSH(t *testing.T) {
	ts := startServer(t)
	tv := openScreen(t, ts.dialGuest(t), "tv --size 3", 80, 24)
	tv.waitUntil("the idle screen", contains("No one is playing right now; waiting…"))

	ann := startBot(t, ts.dial(t, "ann", newKey(t)), "--size 3")
	a := playBot(ann, ann.mustRead(), func(s state) bool { return s.Moves >= 3 })
	tv.waitUntil("ann's game", contains("TV · 2048 ann 3×3 bot ● live"))
	tv.waitUntil("ann's moves", contains(fmt.Sprintf("Moves %d ", a.Moves)))

	bob := startBot(t, ts.dial(t, "bob", newKey(t)), "--size 3")
	b := playBot(bob, bob.mustRead(), func(s state) bool { return s.Score > a.Score })
	if b.Score <= a.Score {
		t.Skip("bob's game ended below ann's score") // seeds are random
	}
	// The frame that switches arrives in several writes: wait for its
	// header and its line together, or fail when it never tells.
	tv.waitUntil("bob overtaking, told", func(s string) bool {
		return strings.Contains(s, "TV · 2048 bob 3×3") && strings.Contains(s, "bob overtook ann.")
	})
	b = playBot(bob, b, func(state) bool { return false }) // to the end
	bob.wait()
	tv.waitUntil("bob's game over", contains(fmt.Sprintf("Game over: bob scored %d.", b.Score)))
	tv.waitUntil("ann's game again", contains("TV · 2048 ann 3×3"))
	ann.finish()
	waitForBoard(tv, "ann left. No one else is playing right now; waiting…", a.Board)
	tv.send("q")
	if code := tv.wait(); code != wire.ExitOK {
		t.Fatalf("exit %d", code)
	}
}
