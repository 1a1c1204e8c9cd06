package review_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/review"
)

// scripted plays seed's 4×4 game as the review's playouts do (the AI at
// review.PlayoutDepth), except at move blunderAt (-1: never), where it
// plays the move the review's own search values lowest.
func scripted(t testing.TB, seed uint64, blunderAt int) review.Game {
	t.Helper()
	s := ai.NewSearcher()
	g, err := engine.ChaCha8.NewGame(4, seed)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []engine.Direction
	for !g.Over() {
		depth := review.PlayoutDepth
		if len(dirs) == blunderAt {
			depth = review.EvalDepth
		}
		e, err := s.Evaluate(context.Background(), g.Board(), depth)
		if err != nil {
			t.Fatal(err)
		}
		d, _, _ := e.Best()
		if len(dirs) == blunderAt {
			for _, x := range engine.Directions() {
				if e.Legal[x] && e.Values[x] < e.Values[d] {
					d = x
				}
			}
		}
		g.Move(d)
		dirs = append(dirs, d)
	}
	return review.Game{Size: 4, Generator: engine.ChaCha8, Seed: seed, Dirs: dirs, Ended: true}
}

// TestPlantedBlunder: in a game the AI plays but for one move, that move
// is the worst of the game and the turning point. Seed 3's game reaches
// 8192 when the AI plays it all; with the move valued lowest at move 200
// it ends at 2048.
func TestPlantedBlunder(t *testing.T) {
	const seed, at = 3, 200
	g := scripted(t, seed, at)
	r, err := review.Make(context.Background(), ai.NewSearcher(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0
	for i, m := range r.Moves {
		if m.Loss > r.Moves[worst].Loss {
			worst = i
		}
	}
	if worst != at {
		t.Errorf("the worst move is %d (loss %v), want the planted %d (loss %v)", worst, r.Moves[worst].Loss, at, r.Moves[at].Loss)
	}
	if c := r.Moves[at].Class; c < review.Mistake {
		t.Errorf("the planted move is classed %v", c)
	}
	if r.TurningPoint == nil || *r.TurningPoint > at+1 {
		t.Errorf("turning point %v, want move %d or before; checkpoints %+v", r.TurningPoint, at+1, r.Checkpoints)
	}
	if r.Checkpoints[0].MaxTile <= r.MaxTile || r.Target != r.Checkpoints[0].MaxTile {
		t.Errorf("from the start the AI reaches %d, the game %d, target %d", r.Checkpoints[0].MaxTile, r.MaxTile, r.Target)
	}
}

// TestNoTurningPointWithoutLoss: the AI's own game has nothing to regret:
// from no checkpoint does the AI reach more than it did.
func TestNoTurningPointWithoutLoss(t *testing.T) {
	g := scripted(t, 4, -1)
	r, err := review.Make(context.Background(), ai.NewSearcher(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.TurningPoint != nil {
		t.Errorf("turning point %d in the AI's own game", *r.TurningPoint)
	}
	if len(r.Checkpoints) != review.Checkpoints || r.Checkpoints[0].MaxTile != r.MaxTile {
		t.Errorf("checkpoints %+v; the game reached %d", r.Checkpoints, r.MaxTile)
	}
}

// TestDeterministic: the same game gives the same review, byte for byte,
// from a lone searcher and from the pool (whose workers keep their tables
// from one search to the next), however the progress is reported.
func TestDeterministic(t *testing.T) {
	g := scripted(t, 6, 40)
	g.Dirs = g.Dirs[:300] // a shorter game, abandoned with moves left
	pool := ai.NewPool(2)
	t.Cleanup(pool.Close)
	var outs [][]byte
	var last float64
	for _, ev := range []review.Evaluator{ai.NewSearcher(), pool, pool} {
		r, err := review.Make(context.Background(), ev, g, func(done float64) {
			if done < last || done > 1 {
				t.Errorf("progress went from %v to %v", last, done)
			}
			last = done
		})
		if err != nil {
			t.Fatal(err)
		}
		if last != 1 {
			t.Errorf("progress ended at %v", last)
		}
		last = 0
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
		back, err := review.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(back); !bytes.Equal(again, b) {
			t.Errorf("the review read back marshals differently")
		}
		if back.Moves[7].Played != r.Moves[7].Played || back.Moves[7].Best != r.Moves[7].Best {
			t.Errorf("move 8 read back: %+v, made %+v", back.Moves[7], r.Moves[7])
		}
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) {
			t.Errorf("review %d differs from the first:\n%s\n%s", i, outs[0][:200], outs[i][:200])
		}
	}
}

// TestInPlay: a game in play is judged move by move, but the AI does not
// play on with the tiles still to come.
func TestInPlay(t *testing.T) {
	g := scripted(t, 6, -1)
	g.Dirs, g.Ended = g.Dirs[:100], false
	r, err := review.Make(context.Background(), ai.NewSearcher(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Moves) != 100 || len(r.Checkpoints) != 0 || r.TurningPoint != nil {
		t.Errorf("%d moves, checkpoints %+v, turning point %v", len(r.Moves), r.Checkpoints, r.TurningPoint)
	}
}

// TestBadMove: a stored move that changes nothing is refused, not judged.
func TestBadMove(t *testing.T) {
	g := review.Game{Size: 4, Generator: engine.ChaCha8, Seed: 1, Dirs: []engine.Direction{engine.Up, engine.Up, engine.Up, engine.Up, engine.Up, engine.Up}}
	if _, err := review.Make(context.Background(), ai.NewSearcher(), g, nil); err == nil {
		t.Error("a game with a move that changes nothing was reviewed")
	}
}

func TestClassOf(t *testing.T) {
	for _, c := range []struct {
		loss float64
		want review.Class
		mark string
	}{
		{0, review.Best, ""}, {0.001, review.Good, ""}, {0.002, review.Inaccuracy, "?!"},
		{0.0099, review.Inaccuracy, "?!"}, {0.01, review.Mistake, "?"}, {0.05, review.Blunder, "??"}, {1, review.Blunder, "??"},
	} {
		got := review.ClassOf(c.loss)
		if got != c.want || got.Mark() != c.mark {
			t.Errorf("ClassOf(%v) = %v %q, want %v %q", c.loss, got, got.Mark(), c.want, c.mark)
		}
		var back review.Class
		if b, _ := got.MarshalText(); back.UnmarshalText(b) != nil || back != got {
			t.Errorf("class %v does not read back", got)
		}
	}
}

func TestDepths(t *testing.T) {
	for _, c := range []struct{ size, eval, playout int }{{3, 2, 1}, {4, 3, 2}, {5, 1, 0}, {8, 1, 0}} {
		if e, p := review.Depths(c.size); e != c.eval || p != c.playout {
			t.Errorf("Depths(%d) = %d, %d; want %d, %d", c.size, e, p, c.eval, c.playout)
		}
	}
}
