package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// dailyHarness is name's daily challenge of size n on the game service
// svc, as `daily` opens it (a guest's when name is "").
func dailyHarness(t *testing.T, svc *game.Service, name string, n int, opts Options) *harness {
	t.Helper()
	p := game.Guest
	if name != "" {
		p = tuitest.Identify(t, svc, name)
	}
	seat := svc.Seat(p, func(error) {})
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
	svc := tuitest.NewService(t)
	h := dailyHarness(t, svc, "ann", 3, Options{})
	if f := h.frame(); !strings.Contains(f, "Rank –") || strings.Contains(f, "Rank #") {
		t.Fatalf("the daily's header at move 0:\n%s", f)
	}
	h.moveOnce()
	if f := h.frame(); !strings.Contains(f, "Rank #1") {
		t.Fatalf("the daily's header after the first move:\n%s", f)
	}
}

// TestOffKeysSayWhy: a key that does nothing on this screen (turned off
// for the daily, a guest or a server without the AI, or a size past the
// last) says why on the status line, rather than nothing.
func TestOffKeysSayWhy(t *testing.T) {
	const (
		daily   = "The daily is one game: no new game, other sizes or AI."
		guest   = "Guests have no saved games: connect with a key to keep them."
		noAI    = "The AI is off on this server."
		largest = "8×8 is the largest board."
	)
	svc := tuitest.NewService(t)
	for _, tc := range []struct {
		name string
		open func(t *testing.T) *harness
		keys []string
		want string
	}{
		{"daily", func(t *testing.T) *harness {
			return dailyHarness(t, svc, "ann", 4, Options{Hinter: &fakeHinter{}, Games: svc})
		}, []string{"n", "5", "8", "+", "-", "i", "p"}, daily},
		{"daily, your games", func(t *testing.T) *harness {
			return dailyHarness(t, svc, "bob", 4, Options{Games: svc})
		}, []string{"g"}, "Your games are on the game screen, not in the daily."},
		{"guest's daily", func(t *testing.T) *harness {
			return dailyHarness(t, svc, "", 4, Options{Games: svc})
		}, []string{"g"}, guest},
		{"guest", func(t *testing.T) *harness {
			return newHarness(t, Options{Store: NewGuestStore(nil, nil), Guest: true, Games: svc, Self: game.Guest}, 80, 24)
		}, []string{"g"}, guest},
		{"no AI", func(t *testing.T) *harness { return newHarness(t, Options{}, 80, 24) }, []string{"i", "p"}, noAI},
		{"8×8", func(t *testing.T) *harness { return newHarness(t, Options{Size: engine.MaxSize}, 80, 24) }, []string{"+", "="}, largest},
		{"3×3", func(t *testing.T) *harness { return newHarness(t, Options{Size: engine.MinSize}, 80, 24) }, []string{"-", "_"}, "3×3 is the smallest board."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range tc.keys {
				h := tc.open(t)
				size := h.m.size
				h.press(k)
				if f := h.frame(); !strings.Contains(f, tc.want) {
					t.Errorf("%s says nothing of why:\n%s", k, f)
				}
				if h.m.size != size || h.m.screen != screenGame {
					t.Errorf("%s did something: size %d, screen %d", k, h.m.size, h.m.screen)
				}
				// The next move takes the line back.
				h.moveOnce()
				if f := h.frame(); strings.Contains(f, tc.want) {
					t.Errorf("after a move, the line still says why %s did nothing:\n%s", k, f)
				}
			}
		})
	}
}

// TestDailyTooSmallOffersNoSizes: the window-too-small text offers the
// keys of the key map, so not the sizes the daily has turned off.
func TestDailyTooSmallOffersNoSizes(t *testing.T) {
	svc := tuitest.NewService(t)
	h := dailyHarness(t, svc, "ann", 4, Options{})
	h.send(tea.WindowSizeMsg{Width: 20, Height: 6})
	if f := h.frame(); !strings.Contains(f, "need") || !strings.Contains(f, "q quit") || strings.Contains(f, "size") {
		t.Fatalf("the daily's window-too-small text:\n%s", f)
	}
}
