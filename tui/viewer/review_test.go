package viewer

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/tui/internal/tuitest"
)

// TestReplayReview: `a` has the AI review the game replayed, with its
// progress; then every move shows its mark, the line under the board the
// AI's choice and the sparkline, `n` goes from mistake to mistake and `t`
// to the turning point; the next replay of the game shows the stored
// review at once.
func TestReplayReview(t *testing.T) {
	pool := ai.NewPool(1)
	t.Cleanup(pool.Close)
	svc := tuitest.NewService(t, game.WithReviews(pool))
	ann := tuitest.Identify(t, svc, "ann")
	opts := ViewOptions{Games: svc, Context: t.Context(), Player: ann}
	var (
		r        *game.Replay
		rp       *replayer
		l        *tuitest.Live
		rev      *review.Review
		last     int
		mistakes []int
	)
	// A game played to its end by the first direction that moves has a
	// mistake nearly always, not always: its tiles are random. A game
	// without one is played again.
	for attempt := 0; len(mistakes) == 0; attempt++ {
		if attempt == 5 {
			t.Fatal("five games in a row have no mistake to go to")
		}
		g := tuitest.PlayGame(t, svc, "ann", 3, 1000) // to its end
		last = len(g.Boards) - 1
		var err error
		if r, err = svc.Replay(context.Background(), g.ID); err != nil {
			t.Fatal(err)
		}
		v := NewReplay(opts, r)
		rp = v.views.Top().(*replayer)
		l = tuitest.NewLive(t, v, 80, 30)
		if f := l.Frame(); strings.Contains(f, "Accuracy") {
			t.Fatalf("a review before one was asked for:\n%s", f)
		}
		l.Press("a")
		f := l.WaitFor("the review", tuitest.Has("Accuracy "))
		rev = rp.review.rev
		if !strings.Contains(f, "mistake") || !strings.Contains(f, "│") {
			t.Errorf("no review keys or sparkline:\n%s", f)
		}
		for _, m := range rev.Moves {
			if m.Class >= review.Mistake {
				mistakes = append(mistakes, m.Number)
			}
		}
	}
	var f string
	for _, want := range mistakes[:min(3, len(mistakes))] {
		l.Press("n")
		m := rev.Moves[want-1]
		f = l.WaitFor("move "+strconv.Itoa(want), tuitest.Has("Move "+strconv.Itoa(want)+"/"+strconv.Itoa(last)+m.Class.Mark()))
		line := "Move " + strconv.Itoa(want) + ": " + m.PlayedName + m.Class.Mark() + " " + m.Class.String()
		if !strings.Contains(f, line) || !strings.Contains(f, "AI: "+m.BestName) {
			t.Errorf("move %d: %q and its AI's choice %s are not on the screen:\n%s", want, line, m.BestName, f)
		}
	}
	if rev.TurningPoint != nil {
		l.Press("t")
		f = l.WaitFor("the turning point", tuitest.MoveShown(*rev.TurningPoint, last))
		if !strings.Contains(f, "turning point") {
			t.Errorf("the turning point is not told:\n%s", f)
		}
	}

	again := NewReplay(opts, r)
	l2 := tuitest.NewLive(t, again, 80, 30)
	l2.WaitFor("the stored review", tuitest.Has("Accuracy "+strconv.FormatFloat(rev.Accuracy, 'f', 1, 64)))
}

func TestSparkline(t *testing.T) {
	v := func(x float64) [4]*float64 { return [4]*float64{&x, nil, nil, nil} }
	r := &review.Review{Moves: []review.Move{{Values: v(1)}, {Values: v(8)}, {Values: v(4)}, {Values: v(8)}}}
	for _, c := range []struct {
		at, width int
		want      string
	}{
		{0, 10, "│█▄█"},
		{2, 10, "▁█│█"},
		{4, 10, "▁█▄│"}, // the end: the last move's cell
		{0, 2, "│▄"},    // two moves a cell, each its lower
	} {
		if got := sparkline(r, c.at, c.width); got != c.want {
			t.Errorf("sparkline at %d in %d cells: %q, want %q", c.at, c.width, got, c.want)
		}
	}
}
