package tui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
)

// TestHistoryScreen: a player's recent games and best of each size, the
// one picked replayed with enter, esc back to the list.
func TestHistoryScreen(t *testing.T) {
	svc := newService(t)
	ended := playGame(t, svc, "ann", 3, 100000)
	inPlay := playGame(t, svc, "ann", 4, 12)
	ann := identify(t, svc, "ann")
	v := NewHistory(ViewOptions{Games: svc, Context: t.Context()}, ann)
	l := newLive(t, v, 80, 24)
	f := l.waitFor("the list", has("Best of each size"))
	for _, want := range []string{"Your games · ann", "Recent", "#" + strconv.FormatInt(inPlay.id, 10), "in play",
		"#" + strconv.FormatInt(ended.id, 10), "just now", "↑↓ pick · enter replay · q quit"} {
		if !strings.Contains(f, want) {
			t.Errorf("%q is not on the screen:\n%s", want, f)
		}
	}
	assertFits(t, f, 80, 24)
	if first := lineWith(f, "›"); !strings.Contains(first, "#"+strconv.FormatInt(inPlay.id, 10)) {
		t.Fatalf("the newest game is not picked first: %q", first)
	}
	l.press("down")
	if picked := lineWith(l.frame(), "›"); !strings.Contains(picked, "#"+strconv.FormatInt(ended.id, 10)) {
		t.Fatalf("↓ picked %q", picked)
	}
	l.press("enter")
	last := len(ended.boards) - 1
	rp := l.waitFor("the replay", moveShown(0, last))
	if !strings.Contains(rp, "esc back") {
		t.Errorf("a replay from the history has no way back:\n%s", rp)
	}
	l.press("G")
	l.waitFor("its end", moveShown(last, last))
	l.press("esc")
	l.waitFor("the list again", has("Best of each size"))
	l.press("q")
	l.waitQuit()
	if !strings.Contains(l.frame(), "replay GAME") {
		t.Errorf("the last line: %q", l.frame())
	}

	// A guest has none, and is told why.
	g := newLive(t, NewHistory(ViewOptions{Games: svc, Context: t.Context()}, game.Guest), 80, 24)
	g.waitFor("the guest's note", has("Guests' games are not kept."))
}

func lineWith(frame, s string) string {
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func TestAgo(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Second: "just now", time.Minute: "1 minute ago", 59 * time.Minute: "59 minutes ago",
		3 * time.Hour: "3 hours ago", 47 * time.Hour: "47 hours ago", 72 * time.Hour: "3 days ago",
	} {
		if got := ago(d); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestHistoryFitsNarrowWindows: in the smallest windows a board fits, the
// list drops its last columns rather than cut its rows, and keeps replay
// and quit in sight.
func TestHistoryFitsNarrowWindows(t *testing.T) {
	svc := newService(t)
	ended := playGame(t, svc, "ann", 3, 100000)
	ann := identify(t, svc, "ann")
	for _, size := range [][2]int{{26, 11}, {34, 13}, {80, 24}} {
		l := newLive(t, NewHistory(ViewOptions{Games: svc, Context: t.Context()}, ann), size[0], size[1])
		f := l.waitFor("the list", has("Best of each size"))
		assertFits(t, f, size[0], size[1])
		if strings.Contains(f, "…") {
			t.Errorf("%dx%d: a line is cut:\n%s", size[0], size[1], f)
		}
		for _, want := range []string{"#" + strconv.FormatInt(ended.id, 10), "score", "tile", "enter replay", "q quit"} {
			if !strings.Contains(f, want) {
				t.Errorf("%dx%d: %q is not on the screen:\n%s", size[0], size[1], want, f)
			}
		}
		if got := strings.Contains(f, "when"); got != (size[0] >= 80) {
			t.Errorf("%dx%d: the when column shown %v:\n%s", size[0], size[1], got, f)
		}
	}
}

// TestHistoryDailyHidden: the player's own game of today's daily
// challenge is listed, but not replayed while the day is on: enter says
// why in one sentence (game.ErrDailyOn), not with the error's chain.
func TestHistoryDailyHidden(t *testing.T) {
	svc := newService(t)
	ann := identify(t, svc, "ann")
	seat := svc.Seat(ann, func() {})
	t.Cleanup(seat.Close)
	p, err := seat.OpenDaily(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	step(t, p)
	l := newLive(t, NewHistory(ViewOptions{Games: svc, Context: t.Context()}, ann), 80, 24)
	l.waitFor("the list", has("#"+strconv.FormatInt(p.ID(), 10)))
	l.press("enter")
	f := l.waitFor("why not", has("That game is part of today's daily challenge; it can be replayed once the day"))
	if strings.Contains(f, "Could not load") || strings.Contains(f, "game "+strconv.FormatInt(p.ID(), 10)) {
		t.Fatalf("enter on today's daily game:\n%s", f)
	}
}
