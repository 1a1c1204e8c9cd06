package viewer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// TestWatchShowsEveryMove: a spectator sees each move the player makes,
// in order, as the player's own screen shows it: the board, the score,
// the move count, and the new and merged tiles marked alike.
func TestWatchShowsEveryMove(t *testing.T) {
	svc := tuitest.NewService(t)
	_, play := tuitest.OpenGame(t, svc, "ann", 4)
	w := tuitest.WatchPlayer(t, svc, "ann")
	v := NewWatch(ViewOptions{Games: svc, Context: t.Context()}, w, "ann")
	l := tuitest.NewLive(t, v, 80, 24)
	f := l.WaitFor("the game", tuitest.MovesShown(0))
	for _, want := range []string{"2048 ann 4×4 ● live", "Score 0", "1 watching", "q quit"} {
		if !strings.Contains(f, want) {
			t.Errorf("%q is not on the screen:\n%s", want, f)
		}
	}
	if got := tuitest.Tiles(f); got == "" || got != tuitest.BoardTiles(play.Board()) {
		t.Errorf("the board reads %q, want %q:\n%s", got, tuitest.BoardTiles(play.Board()), f)
	}
	if strings.Contains(f, "esc back") {
		t.Errorf("esc shows on a screen with nothing to go back to:\n%s", f)
	}
	s := v.views.Top().(*spectator)
	for i := 1; i <= 25; i++ {
		before, d, res := tuitest.Step(t, play)
		f := l.WaitFor(fmt.Sprintf("move %d", i), tuitest.MovesShown(i))
		if got, want := tuitest.Tiles(f), tuitest.BoardTiles(play.Board()); got != want {
			t.Fatalf("move %d: the board shows %s, want %s:\n%s", i, got, want, f)
		}
		if !strings.Contains(f, "Score "+strconv.Itoa(play.Score())) {
			t.Fatalf("move %d: score %d not shown:\n%s", i, play.Score(), f)
		}
		// What Model.move marks on the player's own screen.
		if want := (draw.Marks{On: true, Spawn: res.Spawn, Merged: before.Merges(d)}); s.marks != want {
			t.Fatalf("move %d: marks %+v, want %+v", i, s.marks, want)
		}
	}
}

// TestWatchTellsWhatHappens: a takeover, the player leaving (the last
// board stays) and coming back, and the end of the game, each told on the
// spectator's screen as it happens.
func TestWatchTellsWhatHappens(t *testing.T) {
	svc := tuitest.NewService(t)
	ctx := context.Background()
	seat, play := tuitest.OpenGame(t, svc, "cy", 3)
	tuitest.Step(t, play)
	w, err := svc.Watch(context.Background(), play.ID())
	if err != nil {
		t.Fatal(err)
	}
	l := tuitest.NewLive(t, NewWatch(ViewOptions{Games: svc, Context: t.Context()}, w, ""), 80, 24)
	l.WaitFor("the game", tuitest.MovesShown(1))

	newer := svc.Seat(tuitest.Identify(t, svc, "cy"), nil)
	defer newer.Close()
	taken, err := newer.Open(ctx, 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	l.WaitFor("the takeover", tuitest.Has("Taken over by another session of cy; still watching."))
	seat.Close()
	tuitest.Step(t, taken)
	f := l.WaitFor("the move after the takeover", tuitest.MovesShown(2))
	if strings.Contains(f, "Taken over") {
		t.Errorf("the takeover is still told after the next move:\n%s", f)
	}

	newer.Close()
	left := l.WaitFor("the player leaving", tuitest.Has("cy left; here is the last board."))
	if tuitest.Tiles(left) != tuitest.BoardTiles(taken.Board()) || !strings.Contains(left, "cy 3×3 left") {
		t.Fatalf("after the player left:\n%s\nwant the last board %s", left, tuitest.BoardTiles(taken.Board()))
	}

	back := svc.Seat(tuitest.Identify(t, svc, "cy"), nil)
	defer back.Close()
	again, err := back.Open(ctx, 3, store.KindHuman, false)
	if err != nil {
		t.Fatal(err)
	}
	l.WaitFor("the player back", tuitest.Has("cy is back."))
	for !again.Over() {
		tuitest.Step(t, again)
	}
	over := l.WaitFor("the end", tuitest.Has("Game over: cy scored "+strconv.Itoa(again.Score())+"."))
	if !strings.Contains(over, "cy 3×3 game over") || tuitest.Tiles(over) != tuitest.BoardTiles(again.Board()) {
		t.Fatalf("at the end:\n%s", over)
	}
}

// TestWatchNotices: what a spectator is told for each change of a game,
// snapshot by snapshot, the win included (a won game is slow to reach by
// playing).
func TestWatchNotices(t *testing.T) {
	base := game.Snapshot{GameID: 7, Player: "di", Size: 4, Status: game.Live, Moves: 10}
	with := func(f func(*game.Snapshot)) game.Snapshot { s := base; f(&s); return s }
	tests := []struct {
		name  string
		snaps []game.Snapshot
		want  string
	}{
		{"nothing", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Moves = 11 })}, ""},
		{"won", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Moves, s.Won = 11, true })}, "di made 2048! The game goes on."},
		{"won before watching", []game.Snapshot{with(func(s *game.Snapshot) { s.Won = true })}, ""},
		{"taken over", []game.Snapshot{base, with(func(s *game.Snapshot) { s.TakenOver = 1 })}, "Taken over by another session of di; still watching."},
		{"left", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Status = game.Left })}, "di left; here is the last board."},
		{"already left", []game.Snapshot{with(func(s *game.Snapshot) { s.Status = game.Left })}, "di left; here is the last board."},
		{"back", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Status = game.Left }), base}, "di is back."},
		{"over", []game.Snapshot{base, with(func(s *game.Snapshot) { s.Status, s.Score = game.Ended, 99 })}, "Game over: di scored 99."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSpectator(ViewOptions{Context: context.Background(), Now: time.Now}, false)
			for _, sn := range tt.snaps {
				s.apply(s.snap, s.have, sn)
			}
			if s.notice != tt.want {
				t.Errorf("notice %q, want %q", s.notice, tt.want)
			}
		})
	}
}

// TestWatchFollowsThePlayer: a spectator who named the player follows
// them to the game they start next; one who named the game stays on it.
func TestWatchFollowsThePlayer(t *testing.T) {
	svc := tuitest.NewService(t)
	seat, play := tuitest.OpenGame(t, svc, "eve", 4)
	tuitest.Step(t, play)
	byName := tuitest.WatchPlayer(t, svc, "eve")
	byGame, err := svc.Watch(context.Background(), play.ID())
	if err != nil {
		t.Fatal(err)
	}
	vName := NewWatch(ViewOptions{Games: svc, Context: t.Context()}, byName, "eve")
	vName.views.Top().(*spectator).f.Every = 20 * time.Millisecond
	vGame := NewWatch(ViewOptions{Games: svc, Context: t.Context()}, byGame, "")
	vGame.views.Top().(*spectator).f.Every = 20 * time.Millisecond
	lName, lGame := tuitest.NewLive(t, vName, 80, 24), tuitest.NewLive(t, vGame, 80, 24)
	lName.WaitFor("the game", tuitest.MovesShown(1))
	lGame.WaitFor("the game", tuitest.MovesShown(1))

	// A new game: the old one ends in the store; eve leaves it.
	fresh, err := seat.Open(context.Background(), 4, store.KindHuman, true)
	if err != nil {
		t.Fatal(err)
	}
	play.Close()
	f := lName.WaitFor("the new game", tuitest.Has("eve started another game."))
	if !strings.Contains(f, "Moves 0 ") {
		t.Fatalf("the spectator of eve is not on her new game:\n%s", f)
	}
	tuitest.Step(t, fresh)
	lName.WaitFor("a move of the new game", tuitest.MovesShown(1))
	lGame.Settle(100 * time.Millisecond)
	if f := lGame.Frame(); !strings.Contains(f, "eve left; here is the last board.") {
		t.Fatalf("the spectator of the game did not stay on it:\n%s", f)
	}
}

// TestTV: TV shows the best game in play, says so while there is none,
// moves to a game that overtakes it, and after the game on screen ends
// (and a pause to see how), to the best of the others.
func TestTV(t *testing.T) {
	svc := tuitest.NewService(t)
	v := NewTV(ViewOptions{Games: svc, Context: t.Context()}, 4)
	s := v.views.Top().(*spectator)
	s.f.Every, s.f.Hold = 10*time.Millisecond, 200*time.Millisecond
	l := tuitest.NewLive(t, v, 80, 24)
	idle := l.WaitFor("the idle screen", tuitest.Has("No one is playing right now; waiting…"))
	if !strings.Contains(idle, "2048 TV 4×4") {
		t.Fatalf("idle TV:\n%s", idle)
	}

	_, other := tuitest.OpenGame(t, svc, "fox", 5) // another size: not on this TV
	tuitest.Step(t, other)
	_, ann := tuitest.OpenGame(t, svc, "ann", 4)
	tuitest.Step(t, ann)
	l.WaitFor("ann's game", tuitest.Has("TV · 2048 ann 4×4 ● live"))

	_, bob := tuitest.OpenGame(t, svc, "bob", 4)
	for bob.Score() <= ann.Score() {
		tuitest.Step(t, bob)
	}
	f := l.WaitFor("bob overtaking", tuitest.Has("TV · 2048 bob 4×4"))
	if !strings.Contains(f, "bob overtook ann.") {
		t.Errorf("the switch is not told:\n%s", f)
	}

	for !bob.Over() {
		tuitest.Step(t, bob)
	}
	l.WaitFor("bob's game over", tuitest.Has("Game over: bob scored"))
	l.WaitFor("ann's game again, after the pause", tuitest.Has("TV · 2048 ann 4×4 ● live"))
	ann.Close()
	l.WaitFor("the end of what is on", tuitest.Has("ann left. No one else is playing right now; waiting…"))
	if got := l.Frame(); tuitest.Tiles(got) != tuitest.BoardTiles(ann.Board()) {
		t.Fatalf("TV did not keep the last board:\n%s", got)
	}
}
