package viewer

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/ssh2048/ssh2048/tui/draw"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// TestReplayKeys: every key of the replay, each landing on the board,
// score and marks the player saw after that move.
func TestReplayKeys(t *testing.T) {
	svc := tuitest.NewService(t)
	g := tuitest.PlayGame(t, svc, "ann", 6, 40) // 6×6: a game that lasts 40 moves
	last := len(g.Boards) - 1
	r, err := svc.Replay(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	v := NewReplay(ViewOptions{Games: svc, Context: t.Context()}, r)
	rp := v.views.Top().(*replayer)
	l := tuitest.NewLive(t, v, 80, 24)
	check := func(what string, i int) {
		t.Helper()
		f := l.WaitFor(what, tuitest.MoveShown(i, last))
		if tuitest.Tiles(f) != tuitest.BoardTiles(g.Boards[i]) || !strings.Contains(f, "Score "+strconv.Itoa(g.Scores[i])) {
			t.Fatalf("%s: move %d shows\n%s\nwant board %s, score %d", what, i, f, tuitest.BoardTiles(g.Boards[i]), g.Scores[i])
		}
		if got := rp.marks(); got != g.Marks[i] {
			t.Fatalf("%s: move %d marks %+v, want %+v", what, i, got, g.Marks[i])
		}
	}
	f := l.Frame()
	for _, want := range []string{"Replay ann 6×6 #" + strconv.FormatInt(g.ID, 10) + " in play", "❚❚ paused, 4 moves/s",
		// With the game service's reviews, `a` asks for one; g G leave the line for it.
		"a review · space play · +- speed · ←→ step · : go to · ? help · q quit"} {
		if !strings.Contains(f, want) {
			t.Errorf("%q is not on the screen:\n%s", want, f)
		}
	}
	check("the start", 0)
	l.Press("right")
	check("→", 1)
	l.Press("l", "l")
	check("l l", 3)
	l.Press("left")
	check("←", 2)
	l.Press("h")
	check("h", 1)
	l.Press("G")
	check("G", last)
	if !strings.Contains(l.Frame(), "■ the last move so far: the game is still being played") {
		t.Errorf("the end of a game in play is not told:\n%s", l.Frame())
	}
	l.Press("g")
	check("g", 0)
	l.Press(":", "1", "7", "enter")
	check(": 17", 17)
	l.Press(":", "9", "9", "9", "9", "enter")
	check(": 9999", last)
	if !strings.Contains(l.Frame(), fmt.Sprintf("No move 9999: the game has %d; here is the last.", last)) {
		t.Errorf("a move past the end is not told:\n%s", l.Frame())
	}
	l.Press(":", "5", "esc", "right")
	check(": 5 esc", last) // cancelled; → at the end stays there

	// Speed and play: from the end, space plays from the start.
	l.Press("+", "+", "+", "+", "+", "+", "+")
	if rp.speed != maxSpeed {
		t.Fatalf("speed %d after + seven times, want %d", rp.speed, maxSpeed)
	}
	l.Press("space")
	if !strings.Contains(l.Frame(), "▶ playing, 64 moves/s") {
		t.Fatalf("not playing:\n%s", l.Frame())
	}
	check("the replay played to its end", last)
	if rp.playing {
		t.Fatal("still playing at the end")
	}
	for range 8 {
		l.Press("-")
	}
	if rp.speed != minSpeed {
		t.Fatalf("speed %d after - eight times, want %d", rp.speed, minSpeed)
	}
	l.Press("g", "space", "space") // play and pause at once
	if rp.playing || !strings.Contains(l.Frame(), "❚❚ paused, 1 moves/s") {
		t.Fatalf("space did not pause:\n%s", l.Frame())
	}

	l.Press("?")
	help := l.Frame()
	for _, want := range []string{"Replay keys", "speed: 1 to 64 moves/s", ": 123 enter go to move 123", "? back"} {
		if !strings.Contains(help, want) {
			t.Errorf("%q is not on the help screen:\n%s", want, help)
		}
	}
	if strings.Contains(help, "esc") {
		t.Errorf("esc shows with nothing to go back to:\n%s", help)
	}
	l.Press("?")
	if !strings.Contains(l.Frame(), "Move ") {
		t.Fatalf("? did not close the help:\n%s", l.Frame())
	}
	l.Press("q")
	l.WaitQuit()
	if !strings.Contains(l.Frame(), "Closed the replay of game") {
		t.Fatalf("q: the last view is %q", l.Frame())
	}
}

// TestReplayEnded: an ended game's replay says so at the end.
func TestReplayEnded(t *testing.T) {
	svc := tuitest.NewService(t)
	g := tuitest.PlayGame(t, svc, "bo", 3, 100000)
	r, err := svc.Replay(context.Background(), g.ID)
	if err != nil || !r.Ended {
		t.Fatalf("replay %v, ended %v", err, r != nil && r.Ended)
	}
	l := tuitest.NewLive(t, NewReplay(ViewOptions{Games: svc, Context: t.Context()}, r), 80, 24)
	if strings.Contains(l.Frame(), "in play") {
		t.Errorf("an ended game is shown in play:\n%s", l.Frame())
	}
	l.Press("end")
	l.WaitFor("the end", tuitest.Has("■ the end: bo scored "+strconv.Itoa(g.Scores[len(g.Scores)-1])))
}

// TestViewScreensFit: the screens that show games fit every window the
// board fits, down to the smallest, with their keys in sight, and say
// what size they need below that.
func TestViewScreensFit(t *testing.T) {
	svc := tuitest.NewService(t)
	g := tuitest.PlayGame(t, svc, "zoë", 5, 30)
	_, live := tuitest.OpenGame(t, svc, "yan", 5)
	tuitest.Step(t, live)
	screens := []struct {
		name string
		open func(t *testing.T) *Viewer
		want []string
	}{
		{"watch", func(t *testing.T) *Viewer {
			w, err := svc.Watch(context.Background(), live.ID())
			if err != nil {
				t.Fatal(err)
			}
			return NewWatch(ViewOptions{Games: svc, Context: t.Context()}, w, "")
		}, []string{"Moves 1", "q quit"}},
		{"replay", func(t *testing.T) *Viewer {
			r, err := svc.Replay(context.Background(), g.ID)
			if err != nil {
				t.Fatal(err)
			}
			return NewReplay(ViewOptions{Games: svc, Context: t.Context()}, r)
		}, []string{"Move 0/", "q quit"}},
	}
	// The game screen's smallest window for a 5×5 board: its header on
	// two lines, the status line and the key line besides the board.
	sw, sh := draw.Tiers[0].BoardSize(5)
	sh += 4
	for _, size := range [][2]int{{sw, sh}, {sw + 7, sh + 1}, {80, 24}, {200, 60}} {
		for _, sc := range screens {
			t.Run(fmt.Sprintf("%dx%d/%s", size[0], size[1], sc.name), func(t *testing.T) {
				l := tuitest.NewLive(t, sc.open(t), size[0], size[1])
				f := l.WaitFor("the screen", tuitest.Has(sc.want[0]))
				tuitest.AssertFits(t, f, size[0], size[1])
				for _, w := range sc.want {
					if !strings.Contains(f, w) {
						t.Errorf("%q is not on the screen:\n%s", w, f)
					}
				}
				l.Deliver(tuitest.KeyPress("?"))
				tuitest.AssertFits(t, l.Frame(), size[0], size[1])
			})
		}
	}
	// Too small: the size it needs, and the way out.
	l := tuitest.NewLive(t, screens[1].open(t), 30, 10)
	f := l.WaitFor("the too-small message", tuitest.Has("Window too small"))
	tuitest.AssertFits(t, f, 30, 10)
	if !strings.Contains(f, "q quit") || !strings.Contains(f, "is 30×10") {
		t.Fatalf("too small:\n%s", f)
	}
}

// TestReplayKeyLine: the replay's key line fits every width, quit last to
// go; at 80 columns it has every key but esc, which only a replay opened
// from another screen has.
func TestReplayKeyLine(t *testing.T) {
	svc := tuitest.NewService(t)
	g := tuitest.PlayGame(t, svc, "ann", 3, 5)
	r, err := svc.Replay(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	for width := 26; width <= 120; width++ {
		for _, embedded := range []bool{false, true} {
			rp := newReplayer(ViewOptions{Games: svc}, r, embedded)
			rp.p.Width, rp.p.Height = width, 24
			b, drop := rp.keys.ReplayShortHelp(embedded, width%3 == 1, width%3 == 2) // with a review to ask for, shown, or neither
			l := rp.p.KeyLine(b, drop)
			if l.W > width || !strings.HasSuffix(ansi.Strip(l.S), "q quit") {
				t.Fatalf("width %d: key line %q", width, ansi.Strip(l.S))
			}
			if width == 80 && embedded && !strings.Contains(ansi.Strip(l.S), "esc back") {
				t.Fatalf("at 80 columns a replay from another screen has no way back: %q", ansi.Strip(l.S))
			}
		}
	}
}
