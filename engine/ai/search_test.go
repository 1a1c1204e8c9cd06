package ai

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// fixedDepth searches exactly depth levels with no time bound, so results do
// not depend on the machine's speed.
func fixedDepth(depth int) Budget { return Budget{MaxDepth: depth} }

// gameBoards returns boards met in a real game, played by the search itself
// at a shallow fixed depth: realistic positions at every stage.
func gameBoards(t testing.TB, size int, seed uint64, every int) []engine.Board {
	t.Helper()
	g, err := engine.PCG.NewGame(size, seed)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSearcher()
	var out []engine.Board
	for !g.Over() {
		if g.Moves()%every == 0 {
			out = append(out, g.Board())
		}
		res, err := s.Search(context.Background(), g.Board(), fixedDepth(1))
		if err != nil {
			t.Fatal(err)
		}
		g.Move(res.Dir)
	}
	return out
}

func TestSearchSuggestsAMoveThatMoves(t *testing.T) {
	ctx := context.Background()
	for size := engine.MinSize; size <= engine.MaxSize; size++ {
		rng := rand.New(rand.NewPCG(uint64(size), 7))
		s := NewSearcher()
		for i := range 20 {
			// Random positions from a random game, early and late.
			g, _ := engine.PCG.NewGame(size, rng.Uint64())
			for range rng.IntN(60 * size) {
				if g.Over() {
					break
				}
				g.Move(engine.Direction(rng.IntN(4)))
			}
			if g.Over() {
				continue
			}
			b := g.Board()
			res, err := s.Search(ctx, b, Budget{Time: 2 * time.Millisecond})
			if err != nil {
				t.Fatalf("%d×%d #%d %s: %v", size, size, i, b.String(), err)
			}
			if _, moved := b.Move(res.Dir); !moved {
				t.Fatalf("%d×%d #%d %s: suggested %v, which does not move", size, size, i, g.Board().String(), res.Dir)
			}
		}
	}
}

func TestSearchNoMoves(t *testing.T) {
	for _, text := range []string{
		"2 4 2/4 2 4/2 4 2",
		"2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2",
	} {
		_, err := NewSearcher().Search(context.Background(), mustParse(t, text), DefaultBudget())
		if !errors.Is(err, ErrNoMoves) {
			t.Errorf("%s: err = %v, want ErrNoMoves", text, err)
		}
	}
}

// TestSearchOnlyMove checks boards where a single direction moves anything.
func TestSearchOnlyMove(t *testing.T) {
	tests := []struct {
		board string
		want  engine.Direction
	}{
		{"2 4 2 4/4 2 4 2/2 4 2 4/4 2 4 0", engine.Right}, // or Down: both fill the gap
		{"2 4 2/4 2 4/2 4 0", engine.Right},
		{"0 4 2 4/4 2 4 2/2 4 2 4/4 2 4 2", engine.Left},
	}
	for _, tc := range tests {
		b := mustParse(t, tc.board)
		res, err := NewSearcher().Search(context.Background(), b, fixedDepth(3))
		if err != nil {
			t.Fatalf("%s: %v", tc.board, err)
		}
		if _, moved := b.Move(res.Dir); !moved {
			t.Errorf("%s: suggested %v, which does not move", tc.board, res.Dir)
		}
	}
}

// TestBitboardSearchMatchesGeneric scores the same positions with the
// bitboard search and the generic one. Up to depth 2 the probability cutoff
// never bites and every cached value is exact, so the two must agree to
// float32 rounding: the tables, the heuristic and the expectimax are checked
// against plain code on engine.Board.
func TestBitboardSearchMatchesGeneric(t *testing.T) {
	s := NewSearcher()
	s.ctx = context.Background()
	s.tt = newTransTable()
	boards := gameBoards(t, 4, 99, 25)
	if raceEnabled {
		boards = boards[:min(len(boards), 8)]
	}
	for _, b := range boards {
		bb, _ := FromBoard(b)
		if hb, hg := float64(s.heuristic(uint64(bb))), s.genericHeuristic(&b); !close(hb, hg) {
			t.Fatalf("%s: heuristic bitboard %f, generic %f", b.String(), hb, hg)
		}
		for _, d := range engine.Directions() {
			nb := b
			if _, moved := nb.Move(d); !moved {
				continue
			}
			nbb, _ := FromBoard(nb)
			for depth := 1; depth <= 2; depth++ {
				s.tt.reset()
				vb := float64(s.chance(uint64(nbb), 1, depth))
				vg := s.genericChance(&nb, 1, depth)
				if !close(vb, vg) {
					t.Fatalf("%s %v depth %d: bitboard %f, generic %f", b.String(), d, depth, vb, vg)
				}
			}
		}
	}
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-5*max(math.Abs(a), math.Abs(b), 1) }

// TestSearchStopsAtDeadline gives a search an unbounded depth on an early
// board (which would take minutes) and a 5 ms budget. The bound asserted is
// loose on purpose; the point is that the search stops at all and still
// answers with a legal move.
func TestSearchStopsAtDeadline(t *testing.T) {
	b := mustParse(t, "2 0 0 0/0 0 0 0/0 0 4 0/0 0 0 0")
	start := time.Now()
	res, err := NewSearcher().Search(context.Background(), b, Budget{Time: 5 * time.Millisecond, MaxDepth: 30})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("search with a 5 ms budget took %v", took)
	}
	if _, moved := b.Move(res.Dir); !moved {
		t.Errorf("suggested %v, which does not move", res.Dir)
	}
	if res.Depth >= 30 {
		t.Errorf("reached depth %d in 5 ms; the deadline was not what stopped it", res.Depth)
	}
}

func TestSearchStopsWhenContextDone(t *testing.T) {
	b := mustParse(t, "2 0 0 0/0 0 0 0/0 0 4 0/0 0 0 0")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := NewSearcher().Search(ctx, b, Budget{MaxDepth: 30})
	if err != nil {
		t.Fatal(err)
	}
	if res.Depth != 0 {
		t.Errorf("searched to depth %d with a cancelled context, want 0 (the heuristic-only level)", res.Depth)
	}
}

// playSeeded plays one game with the searcher at budget, up to maxMoves moves.
func playSeeded(t *testing.T, size int, seed uint64, budget Budget, maxMoves int) *engine.Game {
	t.Helper()
	g, err := engine.PCG.NewGame(size, seed)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSearcher()
	for !g.Over() && g.Moves() < maxMoves {
		res, err := s.Search(context.Background(), g.Board(), budget)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Move(res.Dir).Moved {
			t.Fatalf("move %d: suggested %v on %s, which does not move", g.Moves(), res.Dir, g.Board().String())
		}
	}
	return g
}

// playRandom plays uniformly random directions to the end.
func playRandom(t *testing.T, size int, seed uint64) *engine.Game {
	t.Helper()
	g, err := engine.PCG.NewGame(size, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for !g.Over() {
		g.Move(engine.Direction(rng.IntN(4)))
	}
	return g
}

func TestFourByFourReaches2048(t *testing.T) {
	g := playSeeded(t, 4, 1, fixedDepth(2), 1_000_000)
	if !g.Won() {
		t.Errorf("depth-2 search ended at %d after %d moves, want 2048", g.MaxTile(), g.Moves())
	}
}

// TestGenericSizesBeatRandom plays the generic search against uniformly
// random moves on the same seeds. Random play lasts surprisingly long on
// large boards, so the AI plays until it has survived twice as many moves
// as random did (or loses); it must survive that long and outscore random.
func TestGenericSizesBeatRandom(t *testing.T) {
	tests := []struct {
		size   int
		games  int
		budget Budget
	}{
		{size: 3, games: 6, budget: fixedDepth(2)},
		{size: 5, games: 1, budget: fixedDepth(1)},
	}
	for _, tc := range tests {
		var aiScore, aiMoves, randomScore, randomMoves int
		for i := range tc.games {
			seed := uint64(100 + i)
			rnd := playRandom(t, tc.size, seed)
			ai := playSeeded(t, tc.size, seed, tc.budget, 2*rnd.Moves())
			t.Logf("%d×%d seed %d: ai %d (tile %d, %d moves), random %d (tile %d, %d moves)",
				tc.size, tc.size, seed, ai.Score(), ai.MaxTile(), ai.Moves(), rnd.Score(), rnd.MaxTile(), rnd.Moves())
			aiScore += ai.Score()
			aiMoves += ai.Moves()
			randomScore += rnd.Score()
			randomMoves += rnd.Moves()
		}
		if aiMoves < 2*randomMoves || aiScore <= randomScore {
			t.Errorf("%d×%d: ai lasted %d moves and scored %d, random %d moves and %d; want the ai to last twice as long and score more",
				tc.size, tc.size, aiMoves, aiScore, randomMoves, randomScore)
		}
	}
}

func BenchmarkSearchDefaultBudget(b *testing.B) {
	boards := gameBoards(b, 4, 5, 10)
	s := NewSearcher()
	ctx := context.Background()
	var depth, nodes int
	for i := 0; b.Loop(); i++ {
		res, err := s.Search(ctx, boards[i%len(boards)], DefaultBudget())
		if err != nil {
			b.Fatal(err)
		}
		depth += res.Depth
		nodes += res.Nodes
	}
	b.ReportMetric(float64(depth)/float64(b.N), "depth/op")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

// BenchmarkSearchDepth3 is a fixed amount of work (depth 3, no time bound),
// for comparing the speed of the search itself.
func BenchmarkSearchDepth3(b *testing.B) {
	boards := gameBoards(b, 4, 5, 10)
	s := NewSearcher()
	ctx := context.Background()
	nodes := 0
	for i := 0; b.Loop(); i++ {
		res, err := s.Search(ctx, boards[i%len(boards)], fixedDepth(3))
		if err != nil {
			b.Fatal(err)
		}
		nodes += res.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
