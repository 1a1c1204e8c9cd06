package tui

import (
	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
	"strconv"
	"strings"
	"testing"
)

// gameScreen is the game screen of name over the real service, with the
// screens that show games.
func gameScreen(t *testing.T, svc *game.Service, name string) (*tuitest.Live, *game.Seat) {
	t.Helper()
	p := tuitest.Identify(t, svc, name)
	seat := svc.Seat(p, func(error) {})
	t.Cleanup(seat.Close)
	m := New(Options{Store: SeatStore(svc, seat), Player: name, Size: 4, Context: t.Context(), Games: svc, Self: p})
	return tuitest.NewLive(t, m, 80, 24), seat
}

// TestGameScreenOpensViews: from the leaderboard, ↑↓ and enter watch the
// game picked when it is being played and replay it when it has ended;
// g opens the player's own games; the header counts spectators.
func TestGameScreenOpensViews(t *testing.T) {
	svc := tuitest.NewService(t)
	ended := tuitest.PlayGame(t, svc, "bob", 4, 100000) // the best score: first on the board
	_, cyGame := tuitest.OpenGame(t, svc, "cy", 4)
	tuitest.Step(t, cyGame)

	l, _ := gameScreen(t, svc, "ann")
	l.WaitFor("the game", tuitest.Has("Moves 0"))
	l.Press("left", "up", "right", "down")
	l.Press("tab")
	board := l.WaitFor("the leaderboard", tuitest.Has("bob"))
	for _, want := range []string{"↑↓ pick", "enter watch or replay", "tab back"} {
		if !strings.Contains(board, want) {
			t.Errorf("%q is not on the leaderboard:\n%s", want, board)
		}
	}
	l.Press("enter") // bob's game has ended: replayed
	rp := l.WaitFor("bob's replay", tuitest.Has("Replay bob 4×4 #"+strconv.FormatInt(ended.ID, 10)))
	if !strings.Contains(rp, "esc back") {
		t.Errorf("no way back from the replay:\n%s", rp)
	}
	l.Press("right")
	l.WaitFor("a move on", tuitest.MoveShown(1, len(ended.Boards)-1))
	l.Press("esc")
	l.WaitFor("the leaderboard again", tuitest.Has("enter watch or replay"))

	// cy plays: watched.
	for i := 0; i < 5 && picked(l) != "cy"; i++ {
		l.Press("down")
	}
	if picked(l) != "cy" {
		t.Fatalf("could not pick cy's row:\n%s", l.Frame())
	}
	if row := rawLineWith(l.M.View().Content, "cy"); !strings.Contains(row, "\x1b[4") {
		t.Fatalf("the row picked is not marked (underlined where there is no colour): %q", row)
	}
	l.Press("enter")
	l.WaitFor("cy's game", tuitest.Has("2048 cy 4×4 ● live"))
	if cyGame.Watchers() != 1 {
		t.Fatalf("cy has %d watchers, want 1", cyGame.Watchers())
	}
	tuitest.Step(t, cyGame)
	l.WaitFor("cy's move", tuitest.MovesShown(2))
	l.Press("esc")
	l.WaitFor("the leaderboard again", tuitest.Has("enter watch or replay"))
	if cyGame.Watchers() != 0 {
		t.Fatalf("cy still has %d watchers after esc", cyGame.Watchers())
	}

	// g: the player's own games.
	l.Press("tab", "g")
	l.WaitFor("ann's games", tuitest.Has("Your games · ann"))
	l.Press("esc")
	l.WaitFor("the game", func(f string) bool { return strings.Contains(f, "Moves ") && !strings.Contains(f, "Your games") })

	// A spectator of ann: the header says so.
	w := tuitest.WatchPlayer(t, svc, "ann")
	l.Deliver(WatchersMsg{})
	if f := l.Frame(); !strings.Contains(f, "1 watching") {
		t.Fatalf("the header does not count the spectator:\n%s", f)
	}
	w.Close()
	l.Deliver(WatchersMsg{})
	if f := l.Frame(); strings.Contains(f, "watching") {
		t.Fatalf("the header still counts a spectator gone:\n%s", f)
	}

	// q from a screen over the game ends the session, and closes it.
	l.Press("g", "q")
	l.WaitQuit()
	if !strings.Contains(l.Frame(), "Your game is saved") {
		t.Fatalf("the last line: %q", l.Frame())
	}
}

// rawLineWith is the line of a frame with its escape codes whose text
// holds s.
func rawLineWith(frame, s string) string {
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(ansi.Strip(l), s) {
			return l
		}
	}
	return ""
}

// picked is the name on the leaderboard row picked.
func picked(l *tuitest.Live) string {
	m := l.M.(*Model)
	rows, _, _ := m.boardRows()
	if len(rows) == 0 {
		return ""
	}
	return rows[min(m.lbCursor, len(rows)-1)].Player
}

// TestGameScreenWithoutGames: with no game service the leaderboard has no
// pick, enter goes back as before, and g does nothing.
func TestGameScreenWithoutGames(t *testing.T) {
	h := newHarness(t, Options{}, 80, 24)
	h.store.top, h.store.me = standings(5, 2)
	h.press("tab")
	if f := h.frame(); strings.Contains(f, "pick") || strings.Contains(f, "watch") {
		t.Fatalf("the leaderboard offers what it cannot do:\n%s", f)
	}
	h.press("enter")
	if h.m.screen != screenGame {
		t.Fatal("enter did not go back from the leaderboard")
	}
	h.press("g")
	if h.m.views.Top() != nil {
		t.Fatal("g opened a screen without a game service")
	}
}
