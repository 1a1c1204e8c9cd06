package reader_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/screen"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/event"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
	"github.com/ssh2048/ssh2048/tui/reader"
)

// waitCount waits until the transcript holds want more than n times.
func waitCount(t *testing.T, out *transcript, want string, n int) {
	t.Helper()
	waitFor(t, out, fmt.Sprintf("%q a time more", want), func(s string) bool { return strings.Count(s, want) > n })
}

func waitFor(t *testing.T, out *transcript, what string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; transcript:\n%s", what, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitDone waits for the screen to end.
func waitDone(t *testing.T, scr *screen.Screen, out *transcript) {
	t.Helper()
	select {
	case <-scr.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the screen did not end; transcript:\n%s", out.String())
	}
}

// TestWatchTellsEachMove: a spectator hears whose game it is and its
// board, then each move the player makes in its sentence, and the moves
// it missed (it fell behind, and skipped to the newest board) in one
// line. The runner wakes it (ViewOptions.Woken); the test is the runner.
func TestWatchTellsEachMove(t *testing.T) {
	svc := tuitest.NewService(t)
	_, play := tuitest.OpenGame(t, svc, "ann", 4)
	w := tuitest.WatchPlayer(t, svc, "ann")
	m := reader.NewWatch(reader.ViewOptions{Games: svc, Context: t.Context(), Woken: true}, w, "ann")
	scr, out, _ := run(t, m)
	scr.Send(event.WakeMsg{})
	want := "2048 for screen readers, watching ann. Press ? for the keys.\nWatching ann's 4 by 4 game: 0 moves, score 0, 1 watching.\n" +
		strings.Join(reader.BoardLines(play.Board()), "\n") + "\n"
	waitText(t, out, want)
	for i := 1; i <= 20; i++ {
		before, d, res := tuitest.Step(t, play)
		// The direction is found back from the boards: of two that give
		// the same board, the sentence tells either, and their merges.
		told, ok := engine.DirectionOf(before, play.Board(), res.Spawn)
		if !ok || before.Merges(told) != before.Merges(d) {
			t.Fatalf("move %d: %v found back as %v %v", i, d, told, ok)
		}
		sentence := reader.MoveSentence(reader.Moved{Before: before, Dir: told, Result: res, Score: play.Score()}) + "\n"
		n := strings.Count(out.String(), sentence)
		scr.Send(event.WakeMsg{})
		waitCount(t, out, sentence, n)
	}
	for range 3 {
		tuitest.Step(t, play)
	}
	scr.Send(event.WakeMsg{})
	waitText(t, out, fmt.Sprintf("ann made 3 moves meanwhile: 23 moves, score %d, 1 watching. b reads the board.\n", play.Score()))
	if strings.Count(out.String(), "\n") != 6+20+1 {
		t.Errorf("the spectator said more than a line a move:\n%s", out.String())
	}
}

// TestWatchFollowsThePlayer: a spectator who named the player hears the
// player leave, then follows them to the game they start next.
func TestWatchFollowsThePlayer(t *testing.T) {
	svc := tuitest.NewService(t)
	seat, play := tuitest.OpenGame(t, svc, "eve", 4)
	tuitest.Step(t, play)
	w := tuitest.WatchPlayer(t, svc, "eve")
	m := reader.NewWatch(reader.ViewOptions{Games: svc, Context: t.Context()}, w, "eve")
	reader.SetClocks(m, 20*time.Millisecond, 0)
	_, out, send := run(t, m)
	waitText(t, out, "Watching eve's 4 by 4 game: 1 move, score ")
	fresh, err := seat.Open(context.Background(), 4, store.KindHuman, true)
	if err != nil {
		t.Fatal(err)
	}
	play.Close()
	waitText(t, out, "eve started another game.\nWatching eve's 4 by 4 game: 0 moves, score 0, 1 watching.\n"+
		strings.Join(reader.BoardLines(fresh.Board()), "\n")+"\n")
	send("r")
	waitText(t, out, "eve's 4 by 4 game, live: 0 moves, score 0, 1 watching.\n")
}

// TestTVTellsEachSwitch: TV says it waits while no one plays, then whose
// game is on, the game that overtakes it and to whom it switches, the
// end of the game on screen and, after the pause to hear it, the best of
// the others; once no one plays, that it waits, once.
func TestTVTellsEachSwitch(t *testing.T) {
	svc := tuitest.NewService(t)
	m := reader.NewTV(reader.ViewOptions{Games: svc, Context: t.Context()}, 4)
	reader.SetClocks(m, 10*time.Millisecond, 200*time.Millisecond)
	_, out, send := run(t, m)
	waitText(t, out, "2048 TV for screen readers: the best 4 by 4 game being played. Press ? for the keys.\nNo one is playing 4 by 4 right now; waiting.\n")
	send("b")
	waitText(t, out, "No game is on yet: no one is playing 4 by 4 right now.\n")

	_, other := tuitest.OpenGame(t, svc, "fox", 5) // another size: not on this TV
	tuitest.Step(t, other)
	_, ann := tuitest.OpenGame(t, svc, "ann", 4)
	tuitest.Step(t, ann)
	waitText(t, out, "On TV: ann's 4 by 4 game: 1 move, score ")

	_, bob := tuitest.OpenGame(t, svc, "bob", 4)
	for bob.Score() <= ann.Score() {
		tuitest.Step(t, bob)
	}
	waitText(t, out, "bob overtook ann.\nOn TV: bob's 4 by 4 game: ")
	for !bob.Over() {
		tuitest.Step(t, bob)
	}
	onAnn := strings.Count(out.String(), "On TV: ann's 4 by 4 game: 1 move, score ")
	waitText(t, out, "Game over: bob scored "+strconv.Itoa(bob.Score())+".\n")
	waitCount(t, out, "On TV: ann's 4 by 4 game: 1 move, score ", onAnn)
	ann.Close()
	waitText(t, out, "ann left; b reads the last board.\nNo one else is playing right now; waiting.\n")
	send("b")
	waitText(t, out, strings.Join(reader.BoardLines(ann.Board()), "\n")+"\n")
	if n := strings.Count(out.String(), "waiting."); n != 2 {
		t.Errorf("TV said %d times that it waits, want twice (before ann, after her):\n%s", n, out.String())
	}
	if strings.Contains(out.String(), "fox") {
		t.Errorf("TV of 4 by 4 told a 5 by 5 game:\n%s", out.String())
	}
}

// replayOf is a replay of a 3 by 3 game name played moves moves of (or
// to its end), read back from the game service.
func replayOf(t *testing.T, svc *game.Service, name string, moves int) (*game.Replay, tuitest.Played) {
	t.Helper()
	p := tuitest.PlayGame(t, svc, name, 3, moves)
	r, err := svc.Replay(t.Context(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

// TestReplayKeys: each key of a replay, and the line it says.
func TestReplayKeys(t *testing.T) {
	svc := tuitest.NewService(t)
	r, p := replayOf(t, svc, "ann", 100000)
	n := len(p.Boards) - 1
	if !r.Ended || n < 3 {
		t.Fatalf("the game played to its end has %d moves, ended %v", n, r.Ended)
	}
	live, lp := replayOf(t, svc, "ann", 3)
	step := func(i int, pl tuitest.Played, rp *game.Replay) string {
		res := engine.Result{Moved: true, Spawn: pl.Marks[i].Spawn}
		return reader.MoveSentence(reader.Moved{Before: pl.Boards[i-1], Dir: rp.Dirs[i-1], Result: res, Score: pl.Scores[i]})
	}
	end := fmt.Sprintf("The end: move %d of %d, ann scored %d.\n", n, n, p.Scores[n])
	jumpTo := fmt.Sprintf("Go to move: type its number, 0 to %d, then enter; escape cancels.\n", n)
	on := func(i int) string { return step(i, p, r) + fmt.Sprintf(" Move %d of %d.\n", i, n) }
	at := func(i int) string { return fmt.Sprintf("Move %d of %d, score %d.\n", i, n, p.Scores[i]) }
	start := fmt.Sprintf("The start: move 0 of %d, score 0.\n", n)
	for _, tt := range []struct {
		name string
		r    *game.Replay
		keys []string
		want string // all that is said after the keys
	}{
		{"on", r, []string{"l"}, on(1)},
		{"on and back", r, []string{"right", "right", "left"}, on(1) + on(2) + at(1)},
		{"back at the start", r, []string{"h"}, fmt.Sprintf("This is the start: move 0 of %d.\n", n)},
		{"the end", r, []string{"G"}, end},
		{"the last step", r, []string{"end", "left", "l"},
			end + at(n-1) + step(n, p, r) + fmt.Sprintf(" Move %d of %d. The end: ann scored %d.\n", n, n, p.Scores[n])},
		{"past the end", r, []string{"G", "l"}, end + fmt.Sprintf("This is the end: move %d of %d. g goes to the start.\n", n, n)},
		{"the start", r, []string{"l", "l", "home"}, on(1) + on(2) + start},
		{"jump", r, []string{":", "2", "x", "backspace", "3", "enter"},
			jumpTo + "Type the move's number, then enter; escape cancels.\n" + at(3)},
		{"jump past the end, its digits bounded", r, append([]string{":"}, append(strings.Split(strings.Repeat("1", 40), ""), "enter")...),
			jumpTo + fmt.Sprintf("No move 111111111: the game has %d; here is the last.\n", n) + end},
		{"jump cancelled", r, []string{":", "2", "esc"}, jumpTo + "Cancelled; the replay stays where it was.\n"},
		{"jump with nothing typed", r, []string{":", "enter"}, jumpTo + "No move number typed; the replay stays where it was.\n"},
		{"board", r, []string{"G", "b"}, end + strings.Join(reader.BoardLines(p.Boards[n]), "\n") + "\n"},
		{"no back key on its own", r, []string{"esc"}, "That key does nothing here; ? lists the keys.\n"},
		{"a game in play", live, []string{"G", "l"}, "The last move so far: move 3 of 3, score " + strconv.Itoa(lp.Scores[3]) +
			"; the game is still being played.\nThis is the last move so far: move 3 of 3. g goes to the start.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, out, send := run(t, reader.NewReplay(tt.r))
			waitText(t, out, "press ? for the keys.\n")
			start := len(out.String())
			for _, k := range tt.keys {
				send(keyBytes(k))
			}
			waitFor(t, out, fmt.Sprintf("%q", tt.want), func(s string) bool { return strings.Contains(s[start:], tt.want) })
			if got := out.String()[start:]; got != tt.want {
				t.Errorf("after %q:\n%s\nwant:\n%s", tt.keys, got, tt.want)
			}
		})
	}
}

// keyBytes is what a terminal sends for a key named as key.Matches names
// it.
func keyBytes(k string) string {
	switch k {
	case "left":
		return "\x1b[D"
	case "right":
		return "\x1b[C"
	case "up":
		return "\x1b[A"
	case "down":
		return "\x1b[B"
	case "home":
		return "\x1b[H"
	case "end":
		return "\x1b[F"
	case "enter":
		return "\r"
	case "esc":
		return "\x1b"
	case "backspace":
		return "\x7f"
	}
	return k
}

// TestHistoryLines: the list of a player's games, a line each; the
// arrows pick and read one, a number picks one, enter replays it in
// lines, esc comes back; today's daily is listed but not replayed.
func TestHistoryLines(t *testing.T) {
	svc := tuitest.NewService(t)
	ended := tuitest.PlayGame(t, svc, "ann", 3, 100000)
	inPlay := tuitest.PlayGame(t, svc, "ann", 4, 12)
	ann := tuitest.Identify(t, svc, "ann")
	seat := svc.Seat(ann, func(error) {})
	t.Cleanup(seat.Close)
	daily, err := seat.OpenDaily(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	tuitest.Step(t, daily)
	last := len(ended.Boards) - 1

	_, out, send := run(t, reader.NewHistory(reader.ViewOptions{Games: svc, Context: t.Context()}, ann))
	waitText(t, out, "Enter replays the game picked, now number 1; up and down arrows pick another.\n")
	list := out.String()
	for _, want := range []string{
		"2048 for screen readers: your games. Press ? for the keys.\nYour 3 most recent games:\n",
		fmt.Sprintf("1. Game %d, 3 by 3 daily challenge game: score %d, best tile ", daily.ID(), daily.Score()),
		fmt.Sprintf("2. Game %d, 4 by 4 game: score %d, best tile ", inPlay.ID, inPlay.Scores[12]),
		", 12 moves; in play.\n",
		fmt.Sprintf("3. Game %d, 3 by 3 game: score %d, best tile ", ended.ID, ended.Scores[last]),
		fmt.Sprintf(", %d moves; ", last),
		"Your best game of each size:\n4. Game ",
	} {
		if !strings.Contains(list, want) {
			t.Errorf("the list has no %q:\n%s", want, list)
		}
	}
	for _, s := range []struct{ keys, want string }{
		{"\r", fmt.Sprintf("Opening game %d.\nGame %d is of today's daily challenge; it can be replayed once the day is over.\n", daily.ID(), daily.ID())},
		{"k", "That is the first game of the list.\n"},
		{"G", "5. Game "},
		{"j", "That is the last game of the list.\n"},
		{"g", fmt.Sprintf("1. Game %d, 3 by 3 daily", daily.ID())},
		{"3\r", fmt.Sprintf("Opening game %d.\nThe replay of game %d, ann's 3 by 3 game, %d moves, final score %d.\nThe start: move 0 of %d, score 0.\n", ended.ID, ended.ID, last, ended.Scores[last], last)},
		{"l", fmt.Sprintf(" Move 1 of %d.\n", last)},
		{"?", "escape goes back to your games.\n"},
		{"\x1b", fmt.Sprintf("Back to your games: 3. Game %d, 3 by 3 game", ended.ID)},
		{"j", "4. Game "},
		{"77\r", "There is no game 77 in the list: it has 5.\n"},
		{"x", "That key does nothing here; ? lists the keys.\n"},
		{"b", "Your 3 most recent games:\n"},
	} {
		n := strings.Count(out.String(), s.want)
		send(s.keys)
		waitCount(t, out, s.want, n)
	}
}

// TestHistoryWithoutGames: a guest, and a player with no games yet, are
// told why there is nothing to replay.
func TestHistoryWithoutGames(t *testing.T) {
	svc := tuitest.NewService(t)
	for _, tt := range []struct {
		who  game.Player
		want string
	}{
		{game.Guest, "Guests' games are not kept. Connect with an SSH key to keep yours. q quits.\n"},
		{tuitest.Identify(t, svc, "new"), "No games yet: play one, and it is here to replay. q quits.\n"},
	} {
		_, out, send := run(t, reader.NewHistory(reader.ViewOptions{Games: svc, Context: t.Context()}, tt.who))
		waitText(t, out, tt.want)
		send("\r")
		waitText(t, out, "There is no game to replay; q quits.\n")
	}
}

// TestViewsEndWithOneLine: every way a screen that shows games ends
// leaves one last line, with nothing after it: quitting, the server's
// restart, the idle timeout, a takeover.
func TestViewsEndWithOneLine(t *testing.T) {
	svc := tuitest.NewService(t)
	_, play := tuitest.OpenGame(t, svc, "ann", 4)
	tuitest.Step(t, play)
	r, _ := replayOf(t, svc, "bea", 5)
	ann := tuitest.Identify(t, svc, "ann")
	opts := reader.ViewOptions{Games: svc, Context: t.Context()}
	screens := []struct {
		name    string
		model   func() tea.Model
		ready   string
		goodbye string
	}{
		{"watch", func() tea.Model {
			w := tuitest.WatchPlayer(t, svc, "ann")
			return reader.NewWatch(opts, w, "ann")
		}, "Row 4: ", "Stopped watching ann."},
		{"tv", func() tea.Model { return reader.NewTV(opts, 4) }, "On TV: ann's", "Thanks for watching 2048 TV."},
		{"replay", func() tea.Model { return reader.NewReplay(r) }, "press ? for the keys.", fmt.Sprintf("Closed the replay of game %d by bea.", r.GameID)},
		{"history", func() tea.Model { return reader.NewHistory(opts, ann) }, "Enter replays", "Your games are kept; the replay command replays any of them by its game number."},
	}
	ends := []struct {
		name string
		msg  tea.Msg
		key  string
		want string // "": the screen's goodbye
	}{
		{name: "quit", key: "q"},
		{name: "ctrl+c", key: "\x03"},
		{name: "restart", msg: event.ShutdownMsg{Text: "The server is restarting; reconnect in a moment to watch again."},
			want: "The server is restarting; reconnect in a moment to watch again."},
		{name: "idle", msg: event.EndMsg{Text: "No input for 1 second, so the server closed this session."},
			want: "No input for 1 second, so the server closed this session."},
		{name: "taken over", msg: event.TakenOverMsg{}, want: "This session was taken over."},
	}
	for _, sc := range screens {
		for _, e := range ends {
			t.Run(sc.name+"/"+e.name, func(t *testing.T) {
				scr, out, send := run(t, sc.model())
				waitText(t, out, sc.ready)
				if e.msg != nil {
					scr.Send(e.msg)
				} else {
					send(e.key)
				}
				waitDone(t, scr, out)
				want := e.want
				if want == "" {
					want = sc.goodbye
				}
				if got := out.String(); !strings.HasSuffix(got, "\n"+want+"\n") || strings.Contains(got, "\n\n") {
					t.Errorf("transcript:\n%s\nwant it to end with the one line %q", got, want)
				}
			})
		}
	}
}
