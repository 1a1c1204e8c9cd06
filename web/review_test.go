package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/store"
)

// TestGamePageReview: a game's stored review is drawn under its replay:
// the accuracy, the evaluation's chart (an inline SVG) with its mistakes
// marked, and the list of mistakes, each a link seeking the replay to its
// move; a game not reviewed shows the replay alone, and the store is
// asked again for its review only reviewRecheck later.
func TestGamePageReview(t *testing.T) {
	w := newWorld(t)
	ann := w.player(t, "ann")
	id := w.play(t, ann, 3, store.KindHuman, 0)
	ts := w.site(t, Config{})
	page := fmt.Sprintf("/game/%d", id)
	if _, body := get(t, ts, page); strings.Contains(body, "<svg") || strings.Contains(body, "The AI's review") {
		t.Fatalf("a review on the page of a game not reviewed:\n%s", body)
	}

	full, err := w.store.FullGame(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := review.Make(context.Background(), ai.NewSearcher(),
		review.Game{Size: full.Size, Generator: full.Generator, Seed: full.Seed, Dirs: full.Dirs, Ended: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.store.SaveGameReview(context.Background(), id, review.Version, b); err != nil {
		t.Fatal(err)
	}
	if _, body := get(t, ts, page); strings.Contains(body, "<svg") {
		t.Errorf("a page looked a moment ago asks the store again at once")
	}
	_, body := get(t, w.site(t, Config{}), page) // a site whose pages never looked
	want := []string{"The AI's review", fmt.Sprintf("Accuracy %.1f", r.Accuracy), `<svg class="evaluation"`, "<polyline points="}
	mistakes := 0
	for _, m := range r.Moves {
		if m.Class >= review.Mistake {
			mistakes++
			want = append(want, fmt.Sprintf(`<li><a href="#move-%d">move %d%s</a> %s, the AI plays %s`, m.Number, m.Number, m.Class.Mark(), m.PlayedName, m.BestName))
		}
	}
	if mistakes == 0 {
		t.Fatal("the game has no mistake to list")
	}
	if r.TurningPoint != nil {
		want = append(want, fmt.Sprintf(`turning point: <a href="#move-%d">move %d</a>`, *r.TurningPoint, *r.TurningPoint))
	}
	for _, s := range want {
		if !strings.Contains(body, s) {
			t.Errorf("%q is not on the page:\n%s", s, body)
		}
	}
	if n := strings.Count(body, "<circle "); n != mistakes {
		t.Errorf("the chart marks %d moves; the game has %d mistakes and blunders", n, mistakes)
	}
}
