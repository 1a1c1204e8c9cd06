//go:build linux

package server_test

import (
	"math/bits"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/wire"
)

// diskFull makes every write to a file of this process fail, as on a full
// disk (RLIMIT_FSIZE 0: a write fails with EFBIG, as with ENOSPC; Go ignores
// SIGXFSZ), until the returned function makes room again. The server's
// SQLite file is this process's: its commits fail, as store/sqlite's
// TestDiskFull has them fail in a child process.
func diskFull(t *testing.T) (room func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	full := old
	full.Cur = 0
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &full); err != nil {
		t.Fatal(err)
	}
	done := false
	room = func() {
		if !done {
			done = true
			if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(room)
	return room
}

// scoringMove is a direction that merges tiles on the board of st, if one
// does.
func scoringMove(st state) (string, bool) {
	b, err := engine.NewBoard(len(st.Board))
	if err != nil {
		return "", false
	}
	for r, row := range st.Board {
		for c, v := range row {
			if v != 0 {
				b.Set(r, c, uint8(bits.TrailingZeros(uint(v))))
			}
		}
	}
	for _, d := range engine.Directions() {
		nb := b
		if gained, moved := nb.Move(d); moved && gained > 0 {
			return d.String(), true
		}
	}
	return "", false
}

// TestRaceMoveNotSavedIsNotShown: a racing bot's move fails to commit (the
// disk is full). The bot is told the move was not saved and the game is
// kept as it was before it (status 1), and so it must be for the race: the
// racer's Play used to keep the refused move in its game in memory, which
// the race reads (race.current, racer.score), so the opponent was shown,
// and the race's result recorded, a score that was never committed. The
// promise: every answered move is committed before it is shown, and a move
// not saved leaves the game as it was.
func TestRaceMoveNotSavedIsNotShown(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 4*time.Second))
	read := func(b *botSession) raceLine { t.Helper(); return readRaceLine(t, b) }
	a := startBot(t, ts.dial(t, "alpha", newKey(t)), "--race --size 3")
	b := startBot(t, ts.dial(t, "beta", newKey(t)), "--race --size 3")
	alpha := read(a)
	read(b)

	// Alpha plays until a move would score.
	dirs := []string{"left", "up", "right", "down"}
	var scoring string
	for i := 0; ; i++ {
		var ok bool
		if scoring, ok = scoringMove(alpha.state); ok {
			break
		}
		a.send(dirs[i%4])
		if alpha = read(a); alpha.Race.Phase != wire.RaceRunning || alpha.Over {
			t.Fatalf("alpha found no scoring move: %+v", alpha)
		}
	}
	saved := alpha.Score // the score of every move alpha was told is saved

	// The disk is full: alpha's scoring move is not saved, and alpha is
	// told so.
	room := diskFull(t)
	a.send(scoring)
	code := a.wait()
	room()
	if code != wire.ExitError || !strings.Contains(a.stderr.String(), "could not save your move; the game is kept as it was before it") {
		t.Fatalf("alpha's move while the disk was full: exit %d, stderr %q; want 1 and the move not saved", code, a.stderr.String())
	}

	// Beta's last line, once the clock runs out, has alpha's score.
	var last raceLine
	for last.Race == nil || last.Race.Phase != wire.RaceFinished {
		last = read(b)
	}
	if len(last.Race.Opponents) != 1 {
		t.Fatalf("beta's last line: %+v", last.Race)
	}
	if got := last.Race.Opponents[0].Score; got != saved {
		t.Errorf("beta is shown alpha's score %d, but alpha's saved moves make %d: the move the store refused counts in the race", got, saved)
	}
}

// TestRaceScreensEndWhenAMoveIsNotSaved: on a full disk a racer's move is
// not saved, nor can the game be opened again (that writes too), so the
// race screen and the reader's end with status 1 and one line, as the game
// screen does (docs/operating.md, "game not saved"). They used to answer
// that key, and every key after it, with "Could not save that move" until
// the clock ran out: the racer's Play refuses every move after one not
// saved.
func TestRaceScreensEndWhenAMoveIsNotSaved(t *testing.T) {
	const line = "Could not save your move; the game is kept as it was before it."
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 300*time.Millisecond, time.Minute))
	sess, ann, send, wait, bob := readerHostsBob(t, ts)
	send("\r")
	wait("Go! ")
	bob.waitText("bob's race running", " left")

	room := diskFull(t)
	send("wasd") // one of them moves the board
	bob.send("\x1b[A\x1b[D\x1b[B\x1b[C")
	annDone := make(chan error, 1)
	go func() { annDone <- sess.Wait() }()
	select {
	case err := <-annDone:
		if code := exitCode(t, err); code != wire.ExitError || !strings.HasSuffix(ann.String(), line+"\r\n") {
			t.Errorf("the reader's race: exit %d, last lines %q; want 1 and %q", code, lastLines(ann.String(), 3), line)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("the reader's race did not end; last lines %q", lastLines(ann.String(), 3))
	}
	bobErr := bob.Wait()
	room()
	if code := exitCode(t, bobErr); code != wire.ExitError || !strings.Contains(bob.text(), line) {
		t.Errorf("the race screen: exit %d, screen\n%s\nwant 1 and %q", code, bob.text(), line)
	}
}

// lastLines is the last n lines of a transcript.
func lastLines(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\r\n"), "\r\n")
	return lines[max(0, len(lines)-n):]
}
