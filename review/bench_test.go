package review_test

import (
	"context"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/review"
)

// timed is an Evaluator that counts the searches of each depth and the
// time they took: the review's own cost, apart from the replays.
type timed struct {
	s     *ai.Searcher
	calls map[int]int
	took  map[int]time.Duration
}

func (c *timed) Evaluate(ctx context.Context, b engine.Board, depth int) (ai.Evaluation, error) {
	began := time.Now()
	e, err := c.s.Evaluate(ctx, b, depth)
	c.calls[depth]++
	c.took[depth] += time.Since(began)
	return e, err
}

// BenchmarkReview1000 reviews the first 1,000 moves of a 4×4 game (the
// AI's, with a blunder at move 201 that costs it its 8192) on one
// searcher, one core: s/review is the whole review; ms/position the
// evaluation of each move; playout-µs/move and playout-moves the
// playouts with the same dice (checkpoints and the turning point's
// search).
func BenchmarkReview1000(b *testing.B) {
	g := scripted(b, 4, 3, 200)
	g.Dirs = g.Dirs[:1000]
	benchReview(b, g)
}

// BenchmarkReviewLong reviews a long 4×4 game, whole: the game of seed
// longSeed played by the AI at the review's own depth, the longest of the
// first seeds' (docs/review.md), for a review's cost in proportion to the
// game's length. Playing the game first costs about as much as the
// review's evaluations.
func BenchmarkReviewLong(b *testing.B) {
	benchReview(b, playedAt(b, 4, longSeed, -1, review.EvalDepth))
}

// longSeed is the seed of BenchmarkReviewLong's game.
const longSeed = 53

// benchReview reviews g on one searcher and reports the review's cost,
// its evaluations' and its playouts'.
func benchReview(b *testing.B, g review.Game) {
	ev := &timed{s: ai.NewSearcher(), calls: map[int]int{}, took: map[int]time.Duration{}}
	for b.Loop() {
		if _, err := review.Make(context.Background(), ev, g, nil); err != nil {
			b.Fatal(err)
		}
	}
	per := func(d time.Duration, n int) float64 { return float64(d) / float64(max(n, 1)) }
	b.ReportMetric(float64(len(g.Dirs)), "moves")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/review")
	b.ReportMetric(per(ev.took[review.EvalDepth], ev.calls[review.EvalDepth])/1e6, "ms/position")
	b.ReportMetric(per(ev.took[review.PlayoutDepth], ev.calls[review.PlayoutDepth])/1e3, "playout-µs/move")
	b.ReportMetric(float64(ev.calls[review.PlayoutDepth])/float64(b.N), "playout-moves")
	b.ReportMetric(ev.took[review.PlayoutDepth].Seconds()/float64(b.N), "playout-s/review")
}
