package tui

import (
	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/game"
	"strconv"
	"strings"
	"testing"
)

// gameScreen is the game screen of name over the real service, with the
// screens that show games.
func gameScreen(t *testing.T, svc *game.Service, name string) (*live, *game.Seat) {
	t.Helper()
	p := identify(t, svc, name)
	seat := svc.Seat(p, func() {})
	t.Cleanup(seat.Close)
	m := New(Options{Store: SeatStore(svc, seat), Player: name, Size: 4, Context: t.Context(), Games: svc, Self: p})
	return newLive(t, m, 80, 24), seat
}

// TestGameScreenOpensViews: from the leaderboard, ↑↓ and enter watch the
// game picked when it is being played and replay it when it has ended;
// g opens the player's own games; the header counts spectators.
func TestGameScreenOpensViews(t *testing.T) {
	svc := newService(t)
	ended := playGame(t, svc, "bob", 4, 100000) // the best score: first on the board
	_, cyGame := openGame(t, svc, "cy", 4)
	step(t, cyGame)

	l, _ := gameScreen(t, svc, "ann")
	l.waitFor("the game", has("Moves 0"))
	l.press("left", "up", "right", "down")
	l.press("tab")
	board := l.waitFor("the leaderboard", has("bob"))
	for _, want := range []string{"↑↓ pick", "enter watch or replay", "tab back"} {
		if !strings.Contains(board, want) {
			t.Errorf("%q is not on the leaderboard:\n%s", want, board)
		}
	}
	l.press("enter") // bob's game has ended: replayed
	rp := l.waitFor("bob's replay", has("Replay bob 4×4 #"+strconv.FormatInt(ended.id, 10)))
	if !strings.Contains(rp, "esc back") {
		t.Errorf("no way back from the replay:\n%s", rp)
	}
	l.press("right")
	l.waitFor("a move on", moveShown(1, len(ended.boards)-1))
	l.press("esc")
	l.waitFor("the leaderboard again", has("enter watch or replay"))

	// cy plays: watched.
	for i := 0; i < 5 && picked(l) != "cy"; i++ {
		l.press("down")
	}
	if picked(l) != "cy" {
		t.Fatalf("could not pick cy's row:\n%s", l.frame())
	}
	if row := rawLineWith(l.m.View().Content, "cy"); !strings.Contains(row, "\x1b[4") {
		t.Fatalf("the row picked is not marked (underlined where there is no colour): %q", row)
	}
	l.press("enter")
	l.waitFor("cy's game", has("2048 cy 4×4 ● live"))
	if cyGame.Watchers() != 1 {
		t.Fatalf("cy has %d watchers, want 1", cyGame.Watchers())
	}
	step(t, cyGame)
	l.waitFor("cy's move", movesShown(2))
	l.press("esc")
	l.waitFor("the leaderboard again", has("enter watch or replay"))
	if cyGame.Watchers() != 0 {
		t.Fatalf("cy still has %d watchers after esc", cyGame.Watchers())
	}

	// g: the player's own games.
	l.press("tab", "g")
	l.waitFor("ann's games", has("Your games · ann"))
	l.press("esc")
	l.waitFor("the game", func(f string) bool { return strings.Contains(f, "Moves ") && !strings.Contains(f, "Your games") })

	// A spectator of ann: the header says so.
	w, err := svc.WatchPlayer("ann")
	if err != nil {
		t.Fatal(err)
	}
	l.deliver(WatchersMsg{})
	if f := l.frame(); !strings.Contains(f, "1 watching") {
		t.Fatalf("the header does not count the spectator:\n%s", f)
	}
	w.Close()
	l.deliver(WatchersMsg{})
	if f := l.frame(); strings.Contains(f, "watching") {
		t.Fatalf("the header still counts a spectator gone:\n%s", f)
	}

	// q from a screen over the game ends the session, and closes it.
	l.press("g", "q")
	l.waitQuit()
	if !strings.Contains(l.frame(), "Your game is saved") {
		t.Fatalf("the last line: %q", l.frame())
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
func picked(l *live) string {
	m := l.m.(*Model)
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
	if h.m.views.top() != nil {
		t.Fatal("g opened a screen without a game service")
	}
}
