package server_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// TestMergeKeepsNoDailyAttemptPlayable: one attempt a day, and the
// attempt that counts after a merge is the game started first, so that an
// attempt made to learn the day's tiles cannot be followed by one that
// counts (docs/accounts.md). A second key opens today's challenge and
// leaves it at once, without a move: its game is started first. Ann then
// plays today's tiles to the end. Merged, the account has had its attempt
// at the day: its daily must say so, not resume the second key's game
// (which it used to, for ann to play on knowing every tile to come).
func TestMergeKeepsNoDailyAttemptPlayable(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ts := startGames(t, game.WithClock(clk.Now))
	annKey, altKey := newKey(t), newKey(t)
	ann := ts.dial(t, "ann", annKey)
	alt := ts.dial(t, "alt", altKey)

	// The second key opens the day first, and leaves without a move.
	as := openScreen(t, alt, "daily --size 3", 80, 24)
	as.waitText("the second key's daily", "Daily 2026-11-23 3×3")
	as.send("q")
	as.wait()

	// Ann plays the day's tiles to the end: she has seen every one.
	scr := openScreen(t, ann, "daily --size 3", 80, 24)
	scr.waitText("ann's daily", "Daily 2026-11-23 3×3")
	scr.playToTheEnd("Game over")
	scr.send("q")
	scr.wait()

	r := run(t, ann, "link", "")
	_, after, _ := strings.Cut(r.stdout, "Your link code: ")
	code := strings.Fields(after)[0]
	if r := run(t, alt, "link "+code+" --merge", ""); r.code != 0 {
		t.Fatalf("link --merge: %d %q %q", r.code, r.stdout, r.stderr)
	}

	again := openScreen(t, ann, "daily --size 3", 80, 24)
	s := again.waitUntil("the daily after the merge", func(s string) bool {
		return strings.Contains(s, "Already played today.") || strings.Contains(s, "Moves 0")
	})
	if !strings.Contains(s, "Already played today.") {
		// Show that the attempt counts: a move on it moves the
		// account's row on the day's board.
		again.send(arrowLeft + arrowUp + arrowRight + arrowDown)
		again.waitUntil("a move", func(s string) bool { return !strings.Contains(s, "Moves 0") })
		rows := dailyRows(t, ann)
		t.Fatalf("after playing today's 3×3 to the end, and merging a key that had only opened it, ann plays today's "+
			"tiles again in an attempt that counts (the day's board: %s); screen:\n%s", rows, again.text())
	}
	again.send("q")
	again.wait()
}

// dailyRows is today's 3×3 board: name, score, moves and whether ended.
func dailyRows(t *testing.T, c *gossh.Client) string {
	t.Helper()
	var b strings.Builder
	for _, e := range scoresJSON[wire.ScoreEntry](t, c, "scores --daily --size 3 --json") {
		fmt.Fprintf(&b, "[%s: score %d, %d moves, ended %v] ", e.Name, e.Score, e.Moves, e.Ended != nil)
	}
	return b.String()
}
