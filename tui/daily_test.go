package tui

import (
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/game"
)

// dailyHarness is name's daily challenge of size n on the game service
// svc, as `daily` opens it (a guest's when name is "").
func dailyHarness(t *testing.T, svc *game.Service, name string, n int, opts Options) *harness {
	t.Helper()
	p := game.Guest
	if name != "" {
		p = identify(t, svc, name)
	}
	seat := svc.Seat(p, func() {})
	t.Cleanup(seat.Close)
	opts.Store, opts.Guest, opts.Self = DailyStore(svc, seat, svc.Today()), p.Guest, p
	opts.Player, opts.Size, opts.Context = p.Name, n, t.Context()
	opts.Daily = &Daily{Day: svc.Today(), Now: svc.Now}
	return newHarness(t, opts, 80, 24)
}

// moveOnce plays the first of left, up, right, down that moves.
func (h *harness) moveOnce() {
	h.t.Helper()
	before := h.m.game.Moves()
	for _, k := range []string{"left", "up", "right", "down"} {
		if h.m.game.Moves() == before {
			h.press(k)
		}
	}
	if h.m.game.Moves() == before {
		h.t.Fatal("no move changes the board")
	}
}

// TestDailyNoRankBeforeFirstMove: the daily's header ranks the player
// once their game has a move. A game just opened is on the day's board
// with 0 points, which made a first player "Rank #1" before they played.
func TestDailyNoRankBeforeFirstMove(t *testing.T) {
	svc := newService(t)
	h := dailyHarness(t, svc, "ann", 3, Options{})
	if f := h.frame(); !strings.Contains(f, "Rank –") || strings.Contains(f, "Rank #") {
		t.Fatalf("the daily's header at move 0:\n%s", f)
	}
	h.moveOnce()
	if f := h.frame(); !strings.Contains(f, "Rank #1") {
		t.Fatalf("the daily's header after the first move:\n%s", f)
	}
}
