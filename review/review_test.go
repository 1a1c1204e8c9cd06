package review_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/review"
)

// scripted plays seed's 4×4 game as the review's playouts do (the AI at
// review.PlayoutDepth), except at move blunderAt (-1: never), where it
// plays the move the review's own search values lowest.
func scripted(t testing.TB, size int, seed uint64, blunderAt int) review.Game {
	t.Helper()
	_, playoutDepth := review.Depths(size)
	return playedAt(t, size, seed, blunderAt, playoutDepth)
}

// playedAt is scripted with the AI at depth play.
func playedAt(t testing.TB, size int, seed uint64, blunderAt, play int) review.Game {
	t.Helper()
	s := ai.NewSearcher()
	g, err := engine.ChaCha8.NewGame(size, seed)
	if err != nil {
		t.Fatal(err)
	}
	evalDepth, _ := review.Depths(size)
	var dirs []engine.Direction
	for !g.Over() {
		depth := play
		if len(dirs) == blunderAt {
			depth = evalDepth
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
	return review.Game{Size: size, Generator: engine.ChaCha8, Seed: seed, Dirs: dirs, Ended: true}
}

// TestPlantedBlunder: in a game the AI plays but for one move, that move
// is the worst of the game and the turning point (or the turning point
// comes before it). Played by the AI all through, seed 2's 3×3 game
// reaches 256 and seed 3's 4×4 game 8192; with the move valued lowest at
// move 21 (3×3) or 201 (4×4) they end at 128 and 2048.
func TestPlantedBlunder(t *testing.T) {
	for _, c := range []struct {
		size int
		seed uint64
		at   int // the blunder's index: move at+1
	}{{3, 2, 20}, {4, 3, 200}} {
		t.Run(strconv.Itoa(c.size), func(t *testing.T) {
			if c.size == 4 && raceEnabled {
				// Sequential, CPU-bound code the 3×3 case runs too: the
				// race detector has nothing to find and would take minutes.
				t.Skip("the 4×4 game runs without -race")
			}
			g := scripted(t, c.size, c.seed, c.at)
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
			if worst != c.at {
				t.Errorf("the worst move is %d (loss %v), want the planted %d (loss %v)", worst+1, r.Moves[worst].Loss, c.at+1, r.Moves[c.at].Loss)
			}
			if cl := r.Moves[c.at].Class; cl < review.Mistake {
				t.Errorf("the planted move is classed %v", cl)
			}
			if r.TurningPoint == nil || *r.TurningPoint > c.at+1 {
				t.Errorf("turning point %v, want move %d or before; checkpoints %+v", r.TurningPoint, c.at+1, r.Checkpoints)
			}
			if r.Checkpoints[0].MaxTile <= r.MaxTile || r.Target != r.Checkpoints[0].MaxTile {
				t.Errorf("from the start the AI reaches %d, the game %d, target %d", r.Checkpoints[0].MaxTile, r.MaxTile, r.Target)
			}
		})
	}
}

// TestNoTurningPointWithoutLoss: the AI's own game has nothing to regret:
// from no checkpoint does the AI reach more than it did.
func TestNoTurningPointWithoutLoss(t *testing.T) {
	g := scripted(t, 3, 2, -1)
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
// from one search to the next), however the progress is reported: a 3×3
// game whole, and the first 300 moves of a 4×4 game (on the bitboard)
// judged move by move.
func TestDeterministic(t *testing.T) {
	small := scripted(t, 3, 2, 20)
	big := scripted(t, 4, 6, 40)
	big.Dirs, big.Ended = big.Dirs[:300], false
	pool := ai.NewPool(2)
	t.Cleanup(pool.Close)
	for _, g := range []review.Game{small, big} {
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
				t.Errorf("%d×%d: review %d differs from the first:\n%s\n%s", g.Size, g.Size, i, outs[0][:200], outs[i][:200])
			}
		}
	}
}

// TestInPlay: a game in play is judged move by move, but the AI does not
// play on with the tiles still to come.
func TestInPlay(t *testing.T) {
	g := scripted(t, 4, 6, -1)
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

// TestParseAccuracy: the accuracy is read from a review's JSON wherever
// it stands among the top level's fields, not from a nested field of that
// name, and JSON that holds none is an error.
func TestParseAccuracy(t *testing.T) {
	one := 1
	made, err := json.Marshal(review.Review{Version: review.Version, Accuracy: 91.4, TurningPoint: &one,
		Moves: []review.Move{{Number: 1, PlayedName: "up", BestName: "left"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		json string
		want float64
		err  bool
	}{
		{string(made), 91.4, false},
		{`{"counts":{"accuracy":1},"moves":[{"accuracy":2}],"accuracy":87.3}`, 87.3, false},
		{`{"accuracy":0}`, 0, false},
		{`{"version":1}`, 0, true},
		{`{"accuracy":"high"}`, 0, true},
		{`[{"accuracy":1}]`, 0, true},
		{`not json`, 0, true},
		{``, 0, true},
	} {
		got, err := review.ParseAccuracy([]byte(c.json))
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseAccuracy(%s) = %v, %v; want %v (error: %v)", c.json, got, err, c.want, c.err)
		}
	}
}
