package server_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/store"
)

// readerSession opens a shell with a PTY that asks for the screen for
// screen readers, as OpenSSH's `SetEnv SSH2048_SCREEN=reader` does.
func readerSession(t *testing.T, c *gossh.Client, cmd string) (*gossh.Session, *syncBuffer, func(string)) {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Setenv("SSH2048_SCREEN", "reader"); err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	s.Stdout = out
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s, out, func(keys string) { in.Write([]byte(keys)) }
}

var moveSentence = regexp.MustCompile(`(Left|Right|Up|Down): [^\r\n]*\.\r\n`)

// TestReaderScreenTranscript plays the screen for screen readers over
// real SSH: lines only (not one escape sequence), a sentence a move that
// is told only once the move is stored, the board, the score, the keys,
// and the last line with the exit status when the player quits.
func TestReaderScreenTranscript(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	c := ts.dial(t, "ada", key)
	sess, out, send := readerSession(t, c, "")
	waitFor(t, "the greeting", func() bool { return strings.Contains(out.String(), "Press ? for the keys.\r\n") })

	p, err := ts.store.UpsertPlayer(context.Background(), gossh.FingerprintSHA256(key.PublicKey()), "ssh-ed25519", "ada")
	if err != nil {
		t.Fatal(err)
	}
	stored := func() int {
		games, err := ts.store.PlayerGames(context.Background(), p.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range games {
			if g.Size == 4 && g.Kind == store.KindHuman && g.EndedAt == nil {
				return g.Moves
			}
		}
		return 0
	}

	moved := 0
	for i, k := range []string{"a", "s", "d", "w", "\x1b[D", "j", "l", "k"} {
		before := len(moveSentence.FindAllString(out.String(), -1))
		send(k)
		waitFor(t, "move "+k+"'s sentence", func() bool { return len(moveSentence.FindAllString(out.String(), -1)) > before })
		last := moveSentence.FindAllString(out.String(), -1)[before]
		if !strings.HasSuffix(last, "nothing moves.\r\n") {
			moved++
			if !strings.Contains(last, "Score ") {
				t.Errorf("move %d: %q has no score", i+1, last)
			}
		}
		// The sentence is written once the move is durable.
		if got := stored(); got != moved {
			t.Fatalf("after move %d's sentence %q the store has %d moves, want %d", i+1, last, got, moved)
		}
	}
	for _, k := range []struct{ key, want string }{
		{"b", "Row 4: "},
		{"r", "Score "},
		{"?", "question mark lists the keys.\r\n"},
		{"x", "That key does nothing here; ? lists the keys.\r\n"},
	} {
		send(k.key)
		waitFor(t, k.want, func() bool { return strings.Contains(out.String(), k.want) })
	}
	if code := quitScreen(t, sess, send); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	text := out.String()
	if !strings.HasSuffix(text, "Your game is saved; it will be waiting when you come back.\r\n") {
		t.Errorf("the session does not end with its last line:\n%s", text)
	}
	if strings.ContainsRune(text, '\x1b') {
		t.Errorf("the transcript holds escape sequences: %q", text)
	}
	t.Logf("transcript:\n%s", strings.ReplaceAll(text, "\r\n", "\n"))
}

// TestReaderRace races a reader against a player of the race screen in a
// private room: the reader hosts, hears the other come in, sets the size,
// starts, hears the countdown, their own moves and the other leave, then
// the places, and quits with the last line.
func TestReaderRace(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 300*time.Millisecond, 3*time.Second))
	sess, ann, send, wait, bob := readerHostsBob(t, ts)
	send("3")
	wait("Set: 3 by 3 boards, 3 seconds.\r\n")
	bob.waitText("the size on bob's screen", "3×3")
	send("\r")
	wait("The race starts in ")
	wait("Go! ")
	send("a")
	waitFor(t, "ann's move", func() bool { return moveSentence.MatchString(ann.String()) })
	bob.send("q")
	wait("bob left the race with score 0.\r\n")
	wait("The race is over. Places:\r\n")
	wait("(you), ")
	if code := quitScreen(t, sess, send); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	text := ann.String()
	if !strings.HasSuffix(text, "Thanks for racing!\r\n") {
		t.Errorf("the session does not end with its last line:\n%s", text)
	}
	if strings.ContainsRune(text, '\x1b') {
		t.Errorf("the transcript holds escape sequences: %q", text)
	}
	t.Logf("transcript:\n%s", strings.ReplaceAll(text, "\r\n", "\n"))
}

// readerHostsBob has ann, on the screen for screen readers, host room
// blue-fox, and bob, on the race screen, join it: ann's session, what she
// hears, her keys, a wait for what she hears, and bob's screen.
func readerHostsBob(t *testing.T, ts *testServer) (*gossh.Session, *syncBuffer, func(string), func(string), *vtScreen) {
	t.Helper()
	sess, ann, send := readerSession(t, ts.dial(t, "ann", newKey(t)), "race --room blue-fox")
	wait := func(what string) {
		t.Helper()
		waitFor(t, what, func() bool { return strings.Contains(ann.String(), what) })
	}
	wait("You host this room")
	bob := openScreen(t, ts.dial(t, "bob", newKey(t)), "race --room blue-fox", 80, 24)
	wait("bob joined the race.\r\n")
	return sess, ann, send, wait, bob
}

// TestReaderDaily plays today's challenge on the reader screen: its
// title, the keys it turns off, a move, and the last line.
func TestReaderDaily(t *testing.T) {
	ts := startServer(t)
	sess, out, send := readerSession(t, ts.dial(t, "dee", newKey(t)), "daily --size 3")
	wait := func(what string) {
		t.Helper()
		waitFor(t, what, func() bool { return strings.Contains(out.String(), what) })
	}
	wait("2048, the daily challenge of ")
	wait("3 by 3 game, 0 moves, score 0.\r\n")
	send("n")
	wait("The daily is one game: no new game, other sizes or AI.\r\n")
	send("a")
	send("s")
	waitFor(t, "a move", func() bool { return moveSentence.MatchString(out.String()) })
	if code := quitScreen(t, sess, send); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if text := out.String(); !strings.HasSuffix(text, "Your game is saved; it will be waiting when you come back.\r\n") || strings.ContainsRune(text, '\x1b') {
		t.Errorf("transcript:\n%s", text)
	}
}

// TestReaderKeptSetting: `settings screen reader` keeps the reader screen
// for the player's next sessions, with no environment; a value of
// SSH2048_SCREEN that is no screen is refused before any screen.
func TestReaderKeptSetting(t *testing.T) {
	ts := startServer(t)
	key := newKey(t)
	if res := run(t, ts.dial(t, "kim", key), "settings screen reader", ""); res.code != 0 {
		t.Fatalf("settings screen reader: status %d, %s%s", res.code, res.stdout, res.stderr)
	}
	sess, out, send := ptyCommand(t, ts.dial(t, "kim", key), 80, 24, "")
	waitFor(t, "the reader's greeting", func() bool { return strings.Contains(out.String(), "2048 for screen readers.\r\n") })
	if code := quitScreen(t, sess, send); code != 0 || strings.ContainsRune(out.String(), '\x1b') {
		t.Errorf("status %d, transcript %q", code, out.String())
	}

	bad, err := ts.dial(t, "lou", newKey(t)).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if err := bad.Setenv("SSH2048_SCREEN", "braille"); err != nil {
		t.Fatal(err)
	}
	if err := bad.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	bad.Stderr = &stderr
	if err := bad.Shell(); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, bad.Wait()); code != 2 || !strings.Contains(stderr.String(), "SSH2048_SCREEN") {
		t.Errorf("SSH2048_SCREEN=braille: status %d, stderr %q", code, stderr.String())
	}
}
