package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/race"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/wire"
)

var (
	scoreRe = regexp.MustCompile(`Score (\d+)`)
	firstRe = regexp.MustCompile(`›\s+1\s+ann\s`) // ann's own row, in first place
)

// TestRaceRoom races two players in a private room over SSH: the lobby
// with ratings, the room word, the host's controls, the countdown, each
// opponent's live board and score, the clock, the results with the
// rating change, the ratings board, and back to the lobby.
func TestRaceRoom(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 300*time.Millisecond, 4*time.Second))
	ann := openScreen(t, ts.dial(t, "ann", newKey(t)), "race --room blue-fox", 80, 24)
	ann.waitText("ann's lobby", "Race · room blue-fox · 4×4", "Racers 1 of 8", "ann (host)", "1500",
		"Waiting for a second racer", "race --room blue-fox", "3-8 size")
	bob := openScreen(t, ts.dial(t, "bob", newKey(t)), "race --room blue-fox", 80, 24)
	bob.waitText("bob's lobby", "Racers 2 of 8", "Waiting for ann (the host) to start")
	ann.waitText("bob in ann's lobby", "bob", "Press enter to start")

	bob.send("\r") // not the host: nothing happens
	ann.send("3")  // the host sets the size
	bob.waitText("the size on bob's screen", "3×3")
	ann.send("\r")
	race := bob.waitText("the race", "left", "Place", "ann")
	if !strings.Contains(race, "Race 3×3") {
		t.Fatalf("bob's race screen:\n%s", race)
	}
	// Ann moves; her score shows on bob's screen, by her name.
	var annScore string
	for range 50 {
		ann.send(arrowLeft + arrowUp + arrowRight + arrowDown)
		time.Sleep(30 * time.Millisecond)
		if m := scoreRe.FindStringSubmatch(ann.text()); m != nil && m[1] != "0" {
			annScore = m[1]
			break
		}
	}
	if annScore == "" {
		t.Fatalf("ann never scored:\n%s", ann.text())
	}
	bob.waitUntil("ann's score on bob's screen", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "ann") && strings.Contains(l, " "+annScore+" ") {
				return true
			}
		}
		return false
	})
	// The clock runs out: the results, with the rating changes.
	res := ann.waitText("the results", "Results", "1500 → ", "(+", "enter back to the lobby")
	bob.waitText("bob's results", "Results", "(−")
	if !firstRe.MatchString(res) {
		t.Fatalf("ann, who scored, is not first:\n%s", res)
	}
	ratings := scoresJSON[wire.RatingEntry](t, ts.dial(t, "carl", newKey(t)), "scores --races --json")
	if len(ratings) != 2 || ratings[0].Name != "ann" || ratings[0].Rating <= 1500 || ratings[1].Rating >= 1500 || ratings[0].Races != 1 {
		t.Fatalf("ratings after the race: %+v", ratings)
	}
	// The table's ± is the same deviation as the JSON's (and the docs'
	// "1500 ± 350"), not twice it.
	table := run(t, ts.dial(t, "carl", newKey(t)), "scores --races", "")
	for _, e := range ratings {
		want := fmt.Sprintf("%-20s %7.0f %5.0f %7d\n", e.Name, e.Rating, e.Deviation, e.Races)
		if !strings.Contains(table.stdout, want) {
			t.Errorf("scores --races has no row %q:\n%s", want, table.stdout)
		}
	}
	// Back to the lobby: a new race in the same room, ratings shown.
	ann.send("\r")
	ann.waitText("the room again, as ann set it up", "Racers 1 of 8", strconv.Itoa(int(ratings[0].Rating+0.5)), "room blue-fox · 3×3")
	ann.send("q")
	if code := ann.wait(); code != 0 {
		t.Fatalf("ann quit: %d", code)
	}
	bob.send("q")
	bob.wait()
}

// TestRaceForfeit: the public lobby starts by itself; a racer who leaves
// mid-race forfeits and is placed last.
func TestRaceForfeit(t *testing.T) {
	ts := startRaces(t, race.WithTimes(300*time.Millisecond, 300*time.Millisecond, 3*time.Second))
	ann := openScreen(t, ts.dial(t, "ann", newKey(t)), "race", 80, 24)
	ann.waitText("the public lobby", "Race · public lobby · 4×4", "Waiting for a second racer")
	bob := openScreen(t, ts.dial(t, "bob", newKey(t)), "race", 80, 24)
	bob.waitText("the countdown or the race", "bob")
	ann.waitText("the race", "left", "Place")
	bob.waitText("bob's race", "left", "Place")
	bob.send("q")
	if code := bob.wait(); code != 0 {
		t.Fatalf("bob left: exit %d", code)
	}
	res := ann.waitText("the results", "Results", "left: forfeit")
	if !firstRe.MatchString(res) {
		t.Fatalf("ann is not first after bob forfeited:\n%s", res)
	}
	ann.send("q")
	ann.wait()
}

// TestRaceRoomErrors: a malformed word, a full room, a room whose race
// has started: one clear line each.
func TestRaceRoomErrors(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 5*time.Second))
	c := ts.dial(t, "ann", newKey(t))
	bad := openScreen(t, c, "race --room 'Not a word!'", 80, 24)
	if code := bad.wait(); code != wire.ExitUsage {
		t.Fatalf("a malformed room word: exit %d", code)
	}
	// Eight bots fill a room; the ninth racer is told it is full.
	var bots []*botSession
	for i := range race.MaxRacers {
		bots = append(bots, startBot(t, ts.dial(t, fmt.Sprintf("bot%d", i), newKey(t)), "--race --room full-room"))
	}
	// The eight may still be joining: the ninth asks again until the room
	// is full, on one connection, under its session rate (a connection
	// each time ran past the address's connection rate on a busy machine,
	// and was refused at the handshake).
	late := ts.dial(t, "late", newKey(t))
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := run(t, late, "bot --race --room full-room", "")
		if r.code == wire.ExitRoom {
			if !strings.Contains(r.stderr, "room full-room is full (8 racers)") {
				t.Fatalf("a full room: %q", r.stderr)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ninth racer got in: %d %q", r.code, r.stderr)
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, b := range bots {
		b.in.Close()
	}
}

// TestRoomsPerAddress: one address opens at most 10 private rooms at
// once (race.roomsPerNetwork); the next gets status 10 and one line
// saying why. Before, one client could take every room on the server.
func TestRoomsPerAddress(t *testing.T) {
	var hall *race.Hall
	s := servertest.Start(t, t.TempDir(), "127.0.0.1:0", func(c *server.Config) {
		c.Races = race.New(c.Games)
		hall = c.Races
	})
	c := dialFrom(t, s.Addr, "127.0.0.9")
	for i := range 10 {
		startBot(t, c, fmt.Sprintf("--race --room hog-%d", i)) // waits in its room, saying nothing
	}
	// Asked while the ten were still opening, the eleventh would be let
	// in; asking again until refused took a new connection each time,
	// which the address's connection rate refuses on a busy machine.
	deadline := time.Now().Add(10 * time.Second)
	for hall.Stats().Rooms < 10 {
		if time.Now().After(deadline) {
			t.Fatalf("%d rooms open, want the ten", hall.Stats().Rooms)
		}
		time.Sleep(10 * time.Millisecond)
	}
	r := run(t, dialFrom(t, s.Addr, "127.0.0.9"), "bot --race --room one-more", "")
	if want := "bot: too many rooms are open from your address; join one of them, or race in the public lobby\n"; r.code != wire.ExitRoom || r.stderr != want {
		t.Fatalf("an eleventh room from one address: status %d, stderr %q; want %d and %q", r.code, r.stderr, wire.ExitRoom, want)
	}
}

// TestRoomWordMessage: every word the game refuses is told the rule it
// broke; "BLUE-FOX" was told "letters, digits or dashes", which it is.
func TestRoomWordMessage(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "ann", newKey(t))
	for _, word := range []string{"BLUE-FOX", "Blue-fox", "ab", "-fox", "fox-", "blue_fox", strings.Repeat("x", 25)} {
		r := run(t, c, "bot --race --room "+word, "")
		want := fmt.Sprintf("bot: --room %q: a room word is 3 to 24 lowercase letters, digits or dashes, not beginning or ending with a dash\n", word)
		if r.code != wire.ExitUsage || r.stderr != want {
			t.Errorf("--room %s: status %d, stderr %q; want %d and %q", word, r.code, r.stderr, wire.ExitUsage, want)
		}
	}
	// The words the rule allows are let in (and leave at once: no input).
	for _, word := range []string{"abc", "blue-fox", "4-2", strings.Repeat("x", 24)} {
		if r := run(t, c, "bot --race --room "+word, ""); r.code != wire.ExitOK {
			t.Errorf("--room %s: status %d, stderr %q; want 0", word, r.code, r.stderr)
		}
	}
}

// TestBotRace races two bots in the public lobby: the state lines carry
// the race's clock and the opponent's score; the last line says the race
// is finished, with the places. Races with bots rate no one and rank
// apart.
func TestBotRace(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 2*time.Second))
	type raceLine struct {
		state
		Race *wire.Race `json:"race"`
	}
	a := startBot(t, ts.dial(t, "alpha", newKey(t)), "--race --size 3")
	b := startBot(t, ts.dial(t, "beta", newKey(t)), "--race --size 3")
	for _, bot := range []*botSession{a, b} {
		line, err := bot.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("first race line: %v; stderr %s", err, bot.stderr.String())
		}
		var st raceLine
		if err := jsonUnmarshal(line, &st); err != nil || st.Race == nil || st.Race.Phase != wire.RaceRunning ||
			st.Race.LeftMS <= 0 || st.Race.LeftMS > 2000 || len(st.Race.Opponents) != 1 || !st.Race.Opponents[0].Bot {
			t.Fatalf("first race line %s: %v", line, err)
		}
	}
	// Alpha plays until the race is over; beta does nothing.
	// Each command gets one line; the last line, unasked, says the race
	// is finished (after it, the session ends and a command sent then
	// goes nowhere).
	var last raceLine
	for i := 0; ; i++ {
		io.WriteString(a.in, []string{"left\n", "up\n"}[i%2]) //nolint:errcheck // see above
		line, err := a.out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("race line: %v", err)
		}
		if err := jsonUnmarshal(line, &last); err != nil || last.Race == nil {
			t.Fatalf("race line %s: %v", line, err)
		}
		if last.Race.Phase == wire.RaceFinished {
			break
		}
	}
	if last.Race.Place != 1 || last.Race.Opponents[0].Place != 2 {
		t.Fatalf("the last line: %+v", last.Race)
	}
	c := ts.dial(t, "carl", newKey(t))
	if rated := scoresJSON[wire.RatingEntry](t, c, "scores --races --json"); len(rated) != 0 {
		t.Fatalf("a race with bots rated someone: %+v", rated)
	}
	botRows := scoresJSON[wire.BotRaceEntry](t, c, "scores --races --bots --json")
	if len(botRows) != 2 || botRows[0].Name != "alpha" || botRows[0].Wins != 1 || botRows[1].Wins != 0 {
		t.Fatalf("the board of races with bots: %+v", botRows)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestRaceGuest: a guest races, unrated: the lobby says so, and the race
// rates no one (a rating needs two racers with a key).
func TestRaceGuest(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 2*time.Second))
	ann := openScreen(t, ts.dial(t, "ann", newKey(t)), "race --room with-guest", 80, 24)
	ann.waitText("ann's room", "ann (host)")
	guest := openScreen(t, ts.dialGuest(t), "race --room with-guest", 80, 24)
	lobby := ann.waitText("the guest in the lobby", "Racers 2 of 8", "guest", "unrated")
	if !strings.Contains(lobby, "1500") {
		t.Fatalf("ann's rating is not in the lobby:\n%s", lobby)
	}
	ann.send("\r")
	guest.waitText("the guest's race", "left", "Place")
	for range 10 {
		guest.send(arrowLeft + arrowUp + arrowRight + arrowDown)
		time.Sleep(20 * time.Millisecond)
	}
	guest.waitText("the guest's results", "Results", "unrated")
	if rows := scoresJSON[wire.RatingEntry](t, ts.dial(t, "carl", newKey(t)), "scores --races --json"); len(rows) != 0 {
		t.Fatalf("a race with a guest and one key rated someone: %+v", rows)
	}
	guest.send("q")
	ann.send("q")
	guest.wait()
	ann.wait()
}

// TestRaceLobbyShutdown: a racer waiting in a lobby when the server
// restarts is told the race is off, not that a game is saved.
func TestRaceLobbyShutdown(t *testing.T) {
	ts := startServer(t)
	ann := openScreen(t, ts.dial(t, "ann", newKey(t)), "race --room quiet-fox", 80, 24)
	ann.waitText("ann's lobby", "Racers 1 of 8")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if code := ann.wait(); code != wire.ExitRestart {
		t.Fatalf("exit %d at shutdown, want %d", code, wire.ExitRestart)
	}
	if s := ann.text(); !strings.Contains(s, "restarting, which ends your race") || strings.Contains(s, "your game is saved") {
		t.Fatalf("the racer's last line:\n%s", s)
	}
}

// TestBotRaceOverThenCloses: a racing bot that closes its input once its
// state line says "over":true (as the single-game protocol invites)
// keeps the place its score earns: it is no forfeit, and ranks above a
// bot that is still in with fewer points.
func TestBotRaceOverThenCloses(t *testing.T) {
	ts := startRaces(t, race.WithTimes(200*time.Millisecond, 200*time.Millisecond, 5*time.Second))
	read := func(b *botSession) raceLine { t.Helper(); return readRaceLine(t, b) }
	a := startBot(t, ts.dial(t, "alpha", newKey(t)), "--race --size 3")
	b := startBot(t, ts.dial(t, "beta", newKey(t)), "--race --size 3")
	read(a)
	read(b)
	// Beta moves twice, then waits with moves still possible.
	var beta raceLine
	for _, m := range []string{"left", "up"} {
		b.send(m)
		beta = read(b)
	}
	// Alpha plays until its board is over, then closes its input.
	var alpha raceLine
	for i := 0; !alpha.Over; i++ {
		a.send([]string{"left", "up", "right", "down"}[i%4])
		if alpha = read(a); alpha.Race.Phase == wire.RaceFinished {
			t.Fatalf("the clock ran out before alpha's board was over: %+v", alpha)
		}
	}
	if alpha.Score <= beta.Score {
		t.Fatalf("alpha's board is over with %d points, beta has %d: the test needs alpha ahead", alpha.Score, beta.Score)
	}
	a.in.Close()
	if code := a.wait(); code != wire.ExitOK {
		t.Fatalf("alpha closed its input: exit %d", code)
	}
	last := read(b) // unasked: the race finished
	if last.Race.Phase != wire.RaceFinished {
		t.Fatalf("beta's line after alpha left: %+v", last.Race)
	}
	if op := last.Race.Opponents[0]; last.Race.Place != 2 || op.Place != 1 || op.Left || !op.Over || op.Score != alpha.Score {
		t.Fatalf("the places: beta %d with %d points; alpha %+v", last.Race.Place, last.Score, op)
	}
	botRows := scoresJSON[wire.BotRaceEntry](t, ts.dial(t, "carl", newKey(t)), "scores --races --bots --json")
	if len(botRows) != 2 || botRows[0].Name != "alpha" || botRows[0].Wins != 1 {
		t.Fatalf("the board of races with bots: %+v", botRows)
	}
}

// startRaces is startGames with the server's races built with opts.
func startRaces(t testing.TB, opts ...race.Option) *testServer {
	t.Helper()
	s := servertest.Start(t, t.TempDir(), "127.0.0.1:0", servertest.Races(opts...), func(c *server.Config) {
		c.Limits.KeyRate = 1000 // the tests play fast
		c.Limits.BotRate = 0
	})
	return &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}
}

// raceLine is a racing bot's state line.
type raceLine struct {
	state
	Race *wire.Race `json:"race"`
}

// readRaceLine reads b's next state line, which must be a race's.
func readRaceLine(t *testing.T, b *botSession) raceLine {
	t.Helper()
	line, err := b.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("race line: %v; stderr %s", err, b.stderr.String())
	}
	var st raceLine
	if err := jsonUnmarshal(line, &st); err != nil || st.Race == nil {
		t.Fatalf("race line %s: %v", line, err)
	}
	return st
}
