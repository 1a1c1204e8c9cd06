package review_test

import (
	"context"
	"testing"

	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/review"
)

// BenchmarkReview1000 reviews the first 1,000 moves of a 4×4 game, on one
// searcher (one core): "positions" evaluates every move only (a game in
// play), "full" adds the playouts with the same dice; ms/position and
// s/playouts say what each costs.
func BenchmarkReview1000(b *testing.B) {
	g := scripted(b, 3, 200)
	g.Dirs = g.Dirs[:1000]
	s := ai.NewSearcher()
	for _, c := range []struct {
		name  string
		ended bool
	}{{"positions", false}, {"full", true}} {
		b.Run(c.name, func(b *testing.B) {
			g.Ended = c.ended
			var r *review.Review
			for b.Loop() {
				var err error
				if r, err = review.Make(context.Background(), s, g, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N)/float64(len(g.Dirs)), "ms/move")
			played := 0
			for _, cp := range r.Checkpoints {
				played += cp.Moves
			}
			b.ReportMetric(float64(played), "checkpoint-moves")
		})
	}
}
