package reader_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
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
