package server_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// fakeClock is a clock a test moves by hand (game.WithClock).
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// startGames starts a server whose game service has gameOpts.
func startGames(t testing.TB, gameOpts ...game.Option) *testServer {
	t.Helper()
	s := servertest.StartGames(t, t.TempDir(), "127.0.0.1:0", gameOpts, func(c *server.Config) {
		c.Limits.KeyRate = 1000 // the tests play fast
		c.Limits.BotRate = 0
	})
	return &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}
}

// vtScreen is a screen command on a PTY, drawn into a virtual terminal
// (servertest.Screen), with this package's exit codes.
type vtScreen struct {
	*servertest.Screen
	t *testing.T
}

// openScreen runs cmd on a w×h PTY.
func openScreen(t *testing.T, c *gossh.Client, cmd string, w, h int) *vtScreen {
	t.Helper()
	return &vtScreen{servertest.OpenScreen(t, c, cmd, w, h), t}
}

func (v *vtScreen) text() string     { return v.Text() }
func (v *vtScreen) send(keys string) { v.t.Helper(); v.Send(keys) }

// waitText waits until the screen shows every one of texts.
func (v *vtScreen) waitText(what string, texts ...string) string {
	v.t.Helper()
	return v.WaitText(what, texts...)
}

func (v *vtScreen) waitUntil(what string, ok func(string) bool) string {
	v.t.Helper()
	return v.WaitUntil(what, ok)
}

// wait returns the session's exit status.
func (v *vtScreen) wait() int {
	v.t.Helper()
	return exitCode(v.t, v.Wait())
}

const (
	arrowUp    = "\x1b[A"
	arrowDown  = "\x1b[B"
	arrowRight = "\x1b[C"
	arrowLeft  = "\x1b[D"
)

// playToTheEnd presses arrows until the screen shows over.
func (v *vtScreen) playToTheEnd(over string) string {
	v.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		v.send(arrowLeft + arrowDown + arrowRight + arrowDown + arrowLeft + arrowUp)
		time.Sleep(20 * time.Millisecond)
		if s := v.text(); strings.Contains(s, over) {
			return s
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("the game did not end; screen:\n%s", v.text())
		}
	}
}

func scoresJSON[T any](t *testing.T, c *gossh.Client, cmd string) []T {
	t.Helper()
	r := run(t, c, cmd, "")
	if r.code != 0 {
		t.Fatalf("%s: exit %d: %s", cmd, r.code, r.stderr)
	}
	var rows []T
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%s: %v in %q", cmd, err, r.stdout)
	}
	return rows
}

// TestDailyChallenge plays the daily challenge over SSH with a fake
// clock: the header's day and streak, no AI keys, one attempt a day
// ("already played today" with the result and rank), the day's board,
// the seed published the next day (export and verify then work), the
// streak the next day, and a game whose day ends under it.
func TestDailyChallenge(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 11, 23, 22, 0, 0, 0, time.UTC)}
	ts := startGames(t, game.WithClock(clk.Now))
	ann := ts.dial(t, "ann", newKey(t))

	scr := openScreen(t, ann, "daily --size 3", 80, 24)
	first := scr.waitText("the daily header", "Daily 2026-11-23 3×3", "Streak 0")
	if strings.Contains(first, "hint") || strings.Contains(first, "new") || strings.Contains(first, "size") {
		t.Fatalf("the daily screen offers the AI, a new game or sizes:\n%s", first)
	}
	scr.send(arrowLeft + arrowUp + arrowRight + arrowDown)
	scr.waitText("today counted in the streak", "Streak 1")
	over := scr.playToTheEnd("Game over")
	if !strings.Contains(over, "Rank #1") {
		t.Fatalf("the end of the daily shows no rank:\n%s", over)
	}
	scr.send("q")
	if code := scr.wait(); code != 0 {
		t.Fatalf("daily quit: exit %d", code)
	}

	// A second attempt the same day: the result and rank instead.
	again := openScreen(t, ann, "daily --size 3", 80, 24)
	played := again.waitText("already played", "Already played today.", "Rank #1", "The next challenge opens at 00:00 UTC, in 2 h 0 min.")
	again.send("\t")
	board := again.waitText("today's board", "[today's daily]", "ann")
	again.send(arrowRight) // on to the race ratings
	again.waitText("the race ratings", "[races]", "No rated races yet.")
	again.send("q")
	if code := again.wait(); code != 0 {
		t.Fatalf("exit %d after the played screen:\n%s\n%s", code, played, board)
	}

	rows := scoresJSON[wire.ScoreEntry](t, ann, "scores --daily --size 3 --json")
	if len(rows) != 1 || rows[0].Name != "ann" || rows[0].Contest != "daily:2026-11-23" || rows[0].Seed != "" {
		t.Fatalf("today's board: %+v (no seed before the day ends)", rows)
	}
	gameID := rows[0].GameID
	// Ended, but today's: its seed is everyone's seed today.
	if r := run(t, ann, "export "+strconv.FormatInt(gameID, 10), ""); r.code != wire.ExitInPlay || r.stdout != "" {
		t.Fatalf("export of an ended daily game while the day is on: %d %q %s", r.code, r.stdout, r.stderr)
	}

	// Bob opens today's challenge and plays a move, then the day ends
	// under him: his next move gets "the day is over".
	bob := ts.dial(t, "bob", newKey(t))
	bs := openScreen(t, bob, "daily --size 3", 80, 24)
	bs.waitText("bob's daily", "Daily 2026-11-23 3×3")
	bs.send(arrowLeft + arrowRight)
	bs.waitText("bob's first move", "Streak 1")
	// Bob's game in play is today's: export is refused as for a daily,
	// not sent to watch or replay it (which refuse it too).
	bobsGame := false
	for _, e := range scoresJSON[wire.ScoreEntry](t, ann, "scores --daily --size 3 --json") {
		if e.Name != "bob" {
			continue
		}
		bobsGame = true
		id := strconv.FormatInt(e.GameID, 10)
		want := "export: game " + id + " is of today's daily challenge; everyone plays the day on the same tiles, so it is shown once the day is over (UTC).\n"
		if r := run(t, ann, "export "+id, ""); r.code != wire.ExitInPlay || r.stderr != want {
			t.Fatalf("export of a daily game in play: %d %q; want %d %q", r.code, r.stderr, wire.ExitInPlay, want)
		}
	}
	if !bobsGame {
		t.Fatal("bob's daily game in play is not on today's board")
	}
	clk.Set(time.Date(2026, 11, 24, 0, 30, 0, 0, time.UTC))
	bs.send(arrowUp + arrowDown + arrowLeft)
	bs.waitText("the day's end", "The day is over")
	bs.send("q")
	bs.wait()

	// The next day: yesterday's seed is published, and every game of it
	// can be exported and verified.
	past := scoresJSON[wire.ScoreEntry](t, ann, "scores --daily --date 2026-11-23 --size 3 --json")
	if len(past) != 2 || past[0].Seed == "" {
		t.Fatalf("yesterday's board: %+v (with its seed)", past)
	}
	for _, e := range past {
		r := run(t, ann, "export "+strconv.FormatInt(e.GameID, 10), "")
		if r.code != 0 || !strings.Contains(r.stdout, "seed "+e.Seed+"\n") {
			t.Fatalf("export of %s's daily game: %d %s %s", e.Name, r.code, r.stdout, r.stderr)
		}
		if v := run(t, ann, "verify "+strconv.FormatInt(e.GameID, 10), ""); v.code != 0 {
			t.Fatalf("verify of %s's daily game: %d %s %s", e.Name, v.code, v.stdout, v.stderr)
		}
	}
	table := run(t, ann, "scores --daily --date 2026-11-23 --size 3", "")
	if !strings.Contains(table.stdout, "its seed was "+past[0].Seed) || !strings.Contains(table.stdout, "Daily challenge 2026-11-23, 3×3") {
		t.Fatalf("the table of a past day: %s", table.stdout)
	}
	// Ann played yesterday: her streak carries on, and counts today
	// once she moves.
	today := openScreen(t, ann, "daily --size 3", 80, 24)
	today.waitText("the new day", "Daily 2026-11-24 3×3", "Streak 1")
	today.send(arrowLeft + arrowRight + arrowUp)
	today.waitText("two days in a row", "Streak 2")
	today.send("q")
	today.wait()
}

// TestDailyBadInput: every mistake gets one clear line and status 2.
func TestDailyBadInput(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ts := startGames(t, game.WithClock(clk.Now))
	c := ts.dial(t, "ann", newKey(t))
	for _, tc := range []struct{ cmd, want string }{
		{"daily", "needs a terminal"},
		{"daily --size 9", "--size 9: must be 3 to 8"},
		{"scores --daily --date 2026-13-45", "not a day; write it YYYY-MM-DD"},
		{"scores --daily --date tomorrow", "not a day"},
		{"scores --daily --date 2026-11-24", "has not come yet"},
		{"scores --date 2026-11-20", "--date goes with --daily"},
		{"scores --daily --races", "pick one"},
		{"scores --races --size 5", "--races has no --size"},
		{"scores --races --bots --size 4", "--races has no --size"},
		{"race", "needs a terminal"},
		{"bot --room blue-fox", "--room goes with --race"},
		{"bot --race --room No_Spaces", "a room word is 3 to 24 lowercase letters"},
		{"bot --race --room ab", "a room word is 3 to 24 lowercase letters"},
	} {
		r := run(t, c, tc.cmd, "")
		if r.code != wire.ExitUsage || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, stderr %q; want 2 and one line with %q", tc.cmd, r.code, r.stderr, tc.want)
		}
	}
}

// TestDailyGuest: a guest plays a practice board, not today's tiles
// (game.TestDailyGuestPractice has the seeds), is told so, and is not
// ranked.
func TestDailyGuest(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ts := startGames(t, game.WithClock(clk.Now))
	g := openScreen(t, ts.dialGuest(t), "daily", 80, 24)
	first := g.waitText("a guest's daily", "Daily practice 4×4", "Streak –", "Rank guest",
		"A practice board, not today's tiles. Play the daily with an SSH key.")
	if strings.Contains(first, "2026-11-23") {
		t.Fatalf("a guest's practice board is shown as today's challenge:\n%s", first)
	}
	g.send(arrowLeft + arrowUp + arrowRight)
	g.waitUntil("a move", func(s string) bool { return !strings.Contains(s, "Moves 0") })
	g.send("q")
	g.wait()
	if rows := scoresJSON[wire.ScoreEntry](t, ts.dial(t, "ann", newKey(t)), "scores --daily --json"); len(rows) != 0 {
		t.Fatalf("a guest ranks on the daily: %+v", rows)
	}
}

// TestMergeKeepsTheFirstDailyAttempt: one attempt a day per size, and no
// place gained by trying twice. Ann plays today's challenge once and stops
// with a low score; a second, fresh key plays the same day's tiles to the
// end for a better score and is then merged into ann's account. Ann's row
// on the day's board stays her own attempt, the one started first; the
// merge used to put the second key's better attempt there.
func TestMergeKeepsTheFirstDailyAttempt(t *testing.T) {
	clk := &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ts := startGames(t, game.WithClock(clk.Now))
	annKey, altKey := newKey(t), newKey(t)
	ann := ts.dial(t, "ann", annKey)

	scr := openScreen(t, ann, "daily --size 3", 80, 24)
	scr.waitText("ann's daily", "Daily 2026-11-23 3×3")
	scr.send(arrowLeft + arrowUp + arrowRight + arrowDown)
	scr.waitText("ann's first move", "Streak 1")
	scr.send("q")
	scr.wait()
	annScore := dailyScore(t, ann, "ann")

	alt := ts.dial(t, "alt", altKey)
	as := openScreen(t, alt, "daily --size 3", 80, 24)
	as.waitText("the second key's daily", "Daily 2026-11-23 3×3")
	as.playToTheEnd("Game over")
	as.send("q")
	as.wait()
	altScore := dailyScore(t, ann, "alt")
	if altScore <= annScore {
		t.Skipf("the second attempt scored %d, ann %d: the test needs it ahead", altScore, annScore)
	}

	r := run(t, ann, "link", "")
	_, after, _ := strings.Cut(r.stdout, "Your link code: ")
	code := strings.Fields(after)[0]
	if r := run(t, alt, "link "+code+" --merge", ""); r.code != 0 {
		t.Fatalf("link --merge: %d %q %q", r.code, r.stdout, r.stderr)
	}
	rows := scoresJSON[wire.ScoreEntry](t, ann, "scores --daily --size 3 --json")
	if len(rows) != 1 || rows[0].Name != "ann" {
		t.Fatalf("today's board after the merge: %+v", rows)
	}
	if rows[0].Score != annScore {
		t.Fatalf("after merging a second key's attempt, ann's row on today's board scores %d (the second attempt's), not %d (her own one attempt): a second try counted", rows[0].Score, annScore)
	}
}

// dailyScore is name's score on today's 3×3 daily board, 0 if none.
func dailyScore(t *testing.T, c *gossh.Client, name string) int {
	t.Helper()
	for _, e := range scoresJSON[wire.ScoreEntry](t, c, "scores --daily --size 3 --json") {
		if e.Name == name {
			return e.Score
		}
	}
	return 0
}
