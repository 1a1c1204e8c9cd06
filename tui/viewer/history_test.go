package viewer

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// TestHistoryScreen: a player's recent games and best of each size, the
// one picked replayed with enter, esc back to the list.
func TestHistoryScreen(t *testing.T) {
	svc := tuitest.NewService(t)
	ended := tuitest.PlayGame(t, svc, "ann", 3, 100000)
	inPlay := tuitest.PlayGame(t, svc, "ann", 4, 12)
	ann := tuitest.Identify(t, svc, "ann")
	v := NewHistory(ViewOptions{Games: svc, Context: t.Context()}, ann)
	l := tuitest.NewLive(t, v, 80, 24)
	f := l.WaitFor("the list", tuitest.Has("Best of each size"))
	for _, want := range []string{"Your games · ann", "Recent", "#" + strconv.FormatInt(inPlay.ID, 10), "in play",
		"#" + strconv.FormatInt(ended.ID, 10), "just now", "↑↓ pick · enter replay · q quit"} {
		if !strings.Contains(f, want) {
			t.Errorf("%q is not on the screen:\n%s", want, f)
		}
	}
	tuitest.AssertFits(t, f, 80, 24)
	if first := lineWith(f, "›"); !strings.Contains(first, "#"+strconv.FormatInt(inPlay.ID, 10)) {
		t.Fatalf("the newest game is not picked first: %q", first)
	}
	l.Press("down")
	if picked := lineWith(l.Frame(), "›"); !strings.Contains(picked, "#"+strconv.FormatInt(ended.ID, 10)) {
		t.Fatalf("↓ picked %q", picked)
	}
	l.Press("enter")
	last := len(ended.Boards) - 1
	rp := l.WaitFor("the replay", tuitest.MoveShown(0, last))
	if !strings.Contains(rp, "esc back") {
		t.Errorf("a replay from the history has no way back:\n%s", rp)
	}
	l.Press("G")
	l.WaitFor("its end", tuitest.MoveShown(last, last))
	l.Press("esc")
	l.WaitFor("the list again", tuitest.Has("Best of each size"))
	l.Press("q")
	l.WaitQuit()
	if !strings.Contains(l.Frame(), "replay GAME") {
		t.Errorf("the last line: %q", l.Frame())
	}

	// A guest has none, and is told why.
	g := tuitest.NewLive(t, NewHistory(ViewOptions{Games: svc, Context: t.Context()}, game.Guest), 80, 24)
	g.WaitFor("the guest's note", tuitest.Has("Guests' games are not kept."))
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
	svc := tuitest.NewService(t)
	ended := tuitest.PlayGame(t, svc, "ann", 3, 100000)
	ann := tuitest.Identify(t, svc, "ann")
	for _, size := range [][2]int{{26, 11}, {34, 13}, {80, 24}} {
		l := tuitest.NewLive(t, NewHistory(ViewOptions{Games: svc, Context: t.Context()}, ann), size[0], size[1])
		f := l.WaitFor("the list", tuitest.Has("Best of each size"))
		tuitest.AssertFits(t, f, size[0], size[1])
		if strings.Contains(f, "…") {
			t.Errorf("%dx%d: a line is cut:\n%s", size[0], size[1], f)
		}
		for _, want := range []string{"#" + strconv.FormatInt(ended.ID, 10), "score", "tile", "enter replay", "q quit"} {
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
	svc := tuitest.NewService(t)
	ann := tuitest.Identify(t, svc, "ann")
	seat := svc.Seat(ann, func(error) {})
	t.Cleanup(seat.Close)
	p, err := seat.OpenDaily(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	tuitest.Step(t, p)
	l := tuitest.NewLive(t, NewHistory(ViewOptions{Games: svc, Context: t.Context()}, ann), 80, 24)
	l.WaitFor("the list", tuitest.Has("#"+strconv.FormatInt(p.ID(), 10)))
	l.Press("enter")
	f := l.WaitFor("why not", tuitest.Has("That game is part of today's daily challenge; it can be replayed once the day"))
	if strings.Contains(f, "Could not load") || strings.Contains(f, "game "+strconv.FormatInt(p.ID(), 10)) {
		t.Fatalf("enter on today's daily game:\n%s", f)
	}
}
