package tui

import (
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// TestGameOverOffersReview: the game-over box offers r, which opens the
// replay of the game with the AI's review being made; esc goes back to
// the box.
func TestGameOverOffersReview(t *testing.T) {
	pool := ai.NewPool(1)
	t.Cleanup(pool.Close)
	svc := tuitest.NewService(t, game.WithReviews(pool))
	p := tuitest.Identify(t, svc, "ann")
	seat := svc.Seat(p, func(error) {})
	t.Cleanup(seat.Close)
	m := New(Options{Store: SeatStore(svc, seat), Player: "ann", Size: 3, Context: t.Context(), Games: svc, Self: p, Hinter: pool})
	l := tuitest.NewLive(t, m, 80, 30)
	l.WaitFor("the game", tuitest.Has("Moves 0"))
	for i := 0; i < 2000 && !strings.Contains(l.Frame(), "Game over"); i++ {
		l.Press([]string{"left", "down", "right", "up"}[i%4])
	}
	over := l.WaitFor("game over", tuitest.Has("Game over"))
	if !strings.Contains(over, "r review") {
		t.Fatalf("the game-over box does not offer the review:\n%s", over)
	}
	l.Press("r")
	f := l.WaitFor("the review", tuitest.Has("Accuracy "))
	if !strings.Contains(f, "Replay ann 3×3") || !strings.Contains(f, "esc back") {
		t.Errorf("the review is not the game's replay:\n%s", f)
	}
	l.Press("esc")
	l.WaitFor("the game-over box again", tuitest.Has("Game over"))
}
