package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestNewGameStartsWithTwoTiles(t *testing.T) {
	for size := MinSize; size <= MaxSize; size++ {
		for seed := range uint64(50) {
			g, err := PCG.NewGame(size, seed)
			if err != nil {
				t.Fatal(err)
			}
			b := g.Board()
			if tiles := size*size - b.Empty(); tiles != 2 {
				t.Fatalf("size %d seed %d: %d starting tiles: %s", size, seed, tiles, b)
			}
			if b.MaxExponent() > 2 {
				t.Fatalf("size %d seed %d: a starting tile above 4: %s", size, seed, b)
			}
			if g.Score() != 0 || g.Moves() != 0 || g.Won() || g.Over() {
				t.Fatalf("fresh game: score %d moves %d won %v over %v", g.Score(), g.Moves(), g.Won(), g.Over())
			}
		}
	}
	if _, err := PCG.NewGame(9, 1); !errors.Is(err, ErrSize) {
		t.Errorf("PCG.NewGame(9) error = %v, want ErrSize", err)
	}
}

func TestGameMoveSpawnsOnlyAfterRealMove(t *testing.T) {
	g, _ := PCG.NewGame(4, 7)
	g.board = mustParse(t, "2 4 8 16/0 0 0 0/0 0 0 0/0 0 0 0")
	before := g.Board()
	if r := g.Move(Left); r.Moved || g.Board() != before || g.Moves() != 0 {
		t.Fatalf("no-op left: %+v, board %s, moves %d", r, g.Board(), g.Moves())
	}
	r := g.Move(Down)
	if !r.Moved || g.Moves() != 1 {
		t.Fatalf("down: %+v, moves %d", r, g.Moves())
	}
	b := g.Board()
	if got := 16 - b.Empty(); got != 5 {
		t.Fatalf("after down %d tiles, want 4 + 1 spawned: %s", got, b)
	}
	if r.Spawn.Row == 3 || b.At(r.Spawn.Row, r.Spawn.Col) != r.Spawn.Exp {
		t.Fatalf("spawn %+v not where the board says: %s", r.Spawn, b)
	}
}

func TestWinAndKeepPlaying(t *testing.T) {
	g, _ := PCG.NewGame(4, 1)
	g.board = mustParse(t, "1024 1024 0 0/0 0 0 0/0 0 0 0/0 0 0 2")
	if g.Won() {
		t.Fatal("won before merging")
	}
	r := g.Move(Left)
	if !r.Moved || r.Gained != 2048 || g.Score() != 2048 || !g.Won() {
		t.Fatalf("merge to 2048: %+v score %d won %v", r, g.Score(), g.Won())
	}
	if g.Over() {
		t.Fatal("game over right after winning with an open board")
	}
	if r := g.Move(Right); !r.Moved || !g.Won() {
		t.Fatalf("keep playing after win: %+v won %v", r, g.Won())
	}
}

func TestWinExponent(t *testing.T) {
	want := map[int]int{3: 256, 4: 2048, 5: 4096, 6: 8192, 7: 16384, 8: 32768}
	for size, v := range want {
		if got := Value(WinExponent(size)); got != v {
			t.Errorf("WinExponent(%d) = %d, want %d", size, got, v)
		}
	}
}

func TestGameOver(t *testing.T) {
	g, _ := PCG.NewGame(3, 1)
	g.board = mustParse(t, "2 4 2/4 2 4/2 4 2")
	if !g.Over() {
		t.Fatal("full board without merges is not over")
	}
	for _, d := range Directions() {
		if r := g.Move(d); r.Moved {
			t.Fatalf("%v moved on a finished board", d)
		}
	}
}

// playRandom plays a game of random directions to the end (or maxMoves) and
// returns every direction tried, no-ops included.
func playRandomWith(t *testing.T, gen Generator, size int, seed uint64, maxMoves int) (*Game, []Direction) {
	t.Helper()
	g, err := gen.NewGame(size, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	var dirs []Direction
	for len(dirs) < maxMoves && !g.Over() {
		d := Direction(rng.IntN(4))
		dirs = append(dirs, d)
		g.Move(d)
	}
	return g, dirs
}

func TestReplayIsDeterministic(t *testing.T) {
	for _, gen := range []Generator{PCG, ChaCha8} {
		for size := MinSize; size <= MaxSize; size++ {
			for seed := range uint64(10) {
				replayMatches(t, gen, size, seed)
			}
		}
	}
}

func replayMatches(t *testing.T, gen Generator, size int, seed uint64) {
	t.Helper()
	g, dirs := playRandomWith(t, gen, size, seed, 3000)
	for range 2 {
		r, err := gen.Replay(size, seed, dirs)
		if err != nil {
			t.Fatal(err)
		}
		if r.Board() != g.Board() || r.Score() != g.Score() || r.Moves() != g.Moves() || r.Won() != g.Won() || r.Over() != g.Over() {
			t.Fatalf("size %d seed %d: replay %s score %d moves %d, played %s score %d moves %d",
				size, seed, r.Board(), r.Score(), r.Moves(), g.Board(), g.Score(), g.Moves())
		}
	}
	// Another seed gives another game (a check that the seed is used).
	other, _ := gen.Replay(size, seed+1000, dirs)
	if other.Board() == g.Board() && other.Score() == g.Score() {
		t.Fatalf("size %d: seeds %d and %d give the same game", size, seed, seed+1000)
	}
}

func TestReplayRejectsBadDirection(t *testing.T) {
	if _, err := PCG.Replay(4, 1, []Direction{Up, 7}); !errors.Is(err, ErrDirection) {
		t.Fatalf("Replay with direction 7: %v, want ErrDirection", err)
	}
}

func TestEncodeDecodeMoves(t *testing.T) {
	dirs := []Direction{Up, Right, Down, Left, Left}
	got, err := DecodeMoves(EncodeMoves(dirs))
	if err != nil || !slices.Equal(got, dirs) {
		t.Fatalf("round trip: %v, %v", got, err)
	}
	if _, err := DecodeMoves([]byte{0, 1, 4}); !errors.Is(err, ErrDirection) {
		t.Fatalf("DecodeMoves with byte 4: %v, want ErrDirection", err)
	}
}

// weight is Σ value·exponent over the tiles. Merging two 2^k into 2^(k+1)
// raises it by exactly 2^(k+1), so a move's gain must equal the rise in
// weight: a check of the score that shares no code with the move.
func weight(b *Board) int {
	w := 0
	for row := range b.Size() {
		for col := range b.Size() {
			c := b.At(row, col)
			w += Value(c) * int(c)
		}
	}
	return w
}

// checkMoveProperties asserts what must hold for any board and direction.
func checkMoveProperties(t *testing.T, b Board, d Direction) {
	t.Helper()
	after := b
	gained, moved := after.Move(d)
	if after.Sum() != b.Sum() {
		t.Fatalf("%v on %s: tile sum %d → %d", d, b, b.Sum(), after.Sum())
	}
	if want := weight(&after) - weight(&b); gained != want {
		t.Fatalf("%v on %s → %s: gained %d, merged tiles sum to %d", d, b, after, gained, want)
	}
	if moved != (after != b) {
		t.Fatalf("%v on %s: moved=%v but board changed=%v", d, b, moved, after != b)
	}
	// The same move again, with no spawn between, slides nothing: the
	// tiles are already packed, so it changes the board only by merging
	// (2 2 2 2 → 4 4 . . → 8 . . .), and then gains points.
	again := after
	g2, m2 := again.Move(d)
	if m2 != (g2 > 0) {
		t.Fatalf("%v twice on %s: second move on %s slid without merging, gave %s", d, b, after, again)
	}
	if m2 && again.Empty() <= after.Empty() {
		t.Fatalf("%v twice on %s: second move on %s merged but freed no cell: %s", d, b, after, again)
	}
	r := b
	for range 4 {
		r = r.Rotate()
	}
	if r != b {
		t.Fatalf("four rotations of %s give %s", b, r)
	}
}

func TestMovePropertiesRandomBoards(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		b := randomBoard(rng, MinSize+rng.IntN(MaxSize-MinSize+1))
		for _, d := range Directions() {
			checkMoveProperties(t, b, d)
		}
	}
}

// boardFromBytes builds a board of any size from fuzz input: the first byte
// picks the size, each further byte a cell (exponents up to MaxExponent so
// the merge cap is reached too).
func boardFromBytes(data []byte) Board {
	size := MinSize
	if len(data) > 0 {
		size = MinSize + int(data[0])%(MaxSize-MinSize+1)
		data = data[1:]
	}
	b, _ := NewBoard(size)
	for i := 0; i < size*size && i < len(data); i++ {
		exp := data[i] % (MaxExponent + 1)
		if data[i] < 128 {
			exp %= 6 // mostly small tiles, so that merges are common
		}
		b.Set(i/size, i%size, exp)
	}
	return b
}

func FuzzMove(f *testing.F) {
	f.Add([]byte{1, 1, 1, 1, 1, 2, 2, 0, 3})
	f.Add([]byte{5, 62, 62, 1, 1, 0, 0, 0, 0})
	f.Add([]byte{0, 1, 0, 1, 2, 2, 2, 0, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		b := boardFromBytes(data)
		for _, d := range Directions() {
			checkMoveProperties(t, b, d)
		}
	})
}

func FuzzParseBoard(f *testing.F) {
	f.Add("2 2 0 4/0 0 0 0/0 0 0 0/0 0 0 8")
	f.Add("2 4 2/4 2 4/2 4 2")
	f.Add("x/y/z")
	f.Add("")
	f.Add("2 2 0 4/0 0 0 0/0 0 0 0/0 0 0 08")
	f.Add("2 2 0 4/0 0 0 0/0 0 0 0/0 0  8 0")
	f.Add("72057594037927936 0 0/0 0 0/0 0 0")
	f.Fuzz(func(t *testing.T, s string) {
		// The one-pass reader takes only what the general one reads
		// the same.
		if fast, ok := parseCanonical(s); ok {
			if slow, err := parseGeneral(s); err != nil || slow != fast {
				t.Fatalf("parseCanonical(%q) = %s; parseGeneral = %s, %v", s, fast, slow, err)
			}
		}
		b, err := ParseBoard(s)
		if err != nil {
			if !errors.Is(err, ErrBoardText) {
				t.Fatalf("ParseBoard(%q): error %v does not wrap ErrBoardText", s, err)
			}
			return
		}
		again, err := ParseBoard(b.String())
		if err != nil || again != b {
			t.Fatalf("ParseBoard(%q) = %s, which does not read back: %v", s, b, err)
		}
	})
}

// FuzzReplay: with either generator, Replay is the game played move by
// move: the same board, a score that is the sum of the moves' gains, and a
// count of the moves that changed the board (a move that changes nothing
// leaves the board as it was); a copy taken midway (CopyTo, into nothing,
// a game of the same generator or of the other) plays on to the same
// game; a size outside MinSize to MaxSize is refused.
func FuzzReplay(f *testing.F) {
	f.Add(uint8(4), uint64(1), []byte{0, 1, 2, 3}, uint8(0))
	f.Add(uint8(3), uint64(7), []byte("urdlurdlllluuuurrrrddddlurd"), uint8(5))
	f.Add(uint8(9), uint64(0), []byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, size uint8, seed uint64, moves []byte, pick uint8) {
		dirs := make([]Direction, len(moves))
		for i, m := range moves {
			dirs[i] = Direction(m % 4)
		}
		gens := [2]Generator{PCG, ChaCha8}
		gen := gens[pick%2]
		replayed, err := gen.Replay(int(size), seed, dirs)
		if inRange := int(size) >= MinSize && int(size) <= MaxSize; (err == nil) != inRange {
			t.Fatalf("Replay of size %d: error %v", size, err)
		}
		if err != nil {
			return
		}
		played, _ := gen.NewGame(int(size), seed)
		var into *Game // CopyTo's dst: nil, or a game to reuse
		if pick/2%3 > 0 {
			into, _ = gens[(pick+pick/2%3)%2].NewGame(int(size), seed+1)
		}
		var copied *Game
		score, moved := 0, 0
		for i, d := range dirs {
			if i == len(dirs)/2 {
				copied = played.CopyTo(into)
			}
			before := played.Board()
			res := played.Move(d)
			if res.Moved == (played.Board() == before) {
				t.Fatalf("move %d %v: Moved %v, board %s, was %s", i, d, res.Moved, played.Board(), before)
			}
			score += res.Gained
			if res.Moved {
				moved++
			}
			if copied != nil {
				copied.Move(d)
			}
		}
		if copied == nil {
			copied = played.CopyTo(into)
		}
		for name, g := range map[string]*Game{"replayed": replayed, "copied midway": copied} {
			if g.Board() != played.Board() || g.Score() != played.Score() || g.Moves() != played.Moves() || g.Generator() != gen {
				t.Fatalf("%s: %s score %d moves %d %v; played: %s score %d moves %d %v", name,
					g.Board(), g.Score(), g.Moves(), g.Generator(), played.Board(), played.Score(), played.Moves(), gen)
			}
		}
		if played.Score() != score || played.Moves() != moved {
			t.Fatalf("score %d, moves %d; the moves gained %d and %d changed the board", played.Score(), played.Moves(), score, moved)
		}
	})
}

// TestSpawnStatistics checks the spawn rule over 100,000 spawns from a fixed
// seed: the share of 4s and the share of each empty cell must lie within
// five standard deviations of the binomial mean (a false alarm about once
// in 1.7 million runs; a wrong rule, e.g. 4s at 20 % or a skewed cell
// choice, lands far outside).
// TestGenerators: each generator gives its own games, the same ones every
// time; an unknown one is refused by number and by name.
func TestGenerators(t *testing.T) {
	pcg, _ := PCG.NewGame(4, 7)
	chacha, _ := ChaCha8.NewGame(4, 7)
	again, _ := ChaCha8.NewGame(4, 7)
	if chacha.Board() != again.Board() || chacha.Generator() != ChaCha8 || pcg.Generator() != PCG {
		t.Fatal("ChaCha8 is not deterministic, or a game forgets its generator")
	}
	same := 0
	for seed := range uint64(20) {
		a, _ := PCG.NewGame(4, seed)
		b, _ := ChaCha8.NewGame(4, seed)
		if a.Board() == b.Board() {
			same++
		}
	}
	if same > 3 {
		t.Fatalf("PCG and ChaCha8 start %d of 20 seeds alike", same)
	}
	if _, err := Generator(9).NewGame(4, 1); !errors.Is(err, ErrGenerator) {
		t.Fatalf("generator 9: %v", err)
	}
	for _, gen := range []Generator{PCG, ChaCha8} {
		if got, err := ParseGenerator(gen.String()); err != nil || got != gen {
			t.Fatalf("ParseGenerator(%q) = %v, %v", gen.String(), got, err)
		}
	}
	if _, err := ParseGenerator("xorshift"); !errors.Is(err, ErrGenerator) {
		t.Fatalf("ParseGenerator(xorshift): %v", err)
	}
}

func TestSpawnStatistics(t *testing.T) {
	for _, gen := range []Generator{PCG, ChaCha8} {
		t.Run(gen.String(), func(t *testing.T) { spawnStatistics(t, gen) })
	}
}

func spawnStatistics(t *testing.T, gen Generator) {
	const spawns = 100_000
	g, _ := gen.NewGame(4, 2048)
	// Half the board is full, in a checkerboard, so that the choice among
	// empty cells and the skipping of full ones are both tested.
	full, _ := NewBoard(4)
	for i := range 16 {
		if (i/4+i%4)%2 == 0 {
			full.Set(i/4, i%4, 5)
		}
	}
	counts := map[int]int{}
	fours := 0
	for range spawns {
		g.board = full
		s := g.spawn()
		i := s.Row*4 + s.Col
		if full.At(s.Row, s.Col) != 0 {
			t.Fatalf("spawned on full cell %d", i)
		}
		counts[i]++
		if s.Exp == 2 {
			fours++
		} else if s.Exp != 1 {
			t.Fatalf("spawned 2^%d", s.Exp)
		}
	}
	within(t, "fours", fours, spawns, 0.1)
	if len(counts) != 8 {
		t.Fatalf("spawned on %d distinct cells, want 8: %v", len(counts), counts)
	}
	for cell, n := range counts {
		within(t, fmt.Sprintf("cell %d", cell), n, spawns, 1.0/8)
	}
}

func within(t *testing.T, what string, got, n int, p float64) {
	t.Helper()
	mean := float64(n) * p
	sd := math.Sqrt(float64(n) * p * (1 - p))
	if math.Abs(float64(got)-mean) > 5*sd {
		t.Errorf("%s: %d of %d, want %.0f ± %.0f", what, got, n, mean, 5*sd)
	}
}

// midGameBoards plays seeded random games partway so that benchmarks move
// realistic boards: some full rows, some merges, some empty cells.
func midGameBoards(size, count int) []Board {
	boards := make([]Board, 0, count)
	for seed := uint64(0); len(boards) < count; seed++ {
		g, _ := PCG.NewGame(size, seed)
		rng := rand.New(rand.NewPCG(seed, 1))
		for g.Moves() < 20*size && !g.Over() {
			g.Move(Direction(rng.IntN(4)))
		}
		boards = append(boards, g.Board())
	}
	return boards
}

func BenchmarkMove(b *testing.B) {
	for _, size := range []int{4, 8} {
		b.Run(fmt.Sprintf("%dx%d", size, size), func(b *testing.B) {
			var boards [64]Board // a power of two, so the harness picks one with a mask
			copy(boards[:], midGameBoards(size, len(boards)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				board := boards[i&63]
				board.Move(Direction(i & 3))
				i++
			}
		})
	}
}

func BenchmarkGameMove(b *testing.B) {
	g, _ := PCG.NewGame(4, 1)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if g.Over() {
			g, _ = PCG.NewGame(4, uint64(i))
		}
		g.Move(Direction(i & 3))
		i++
	}
}

// TestCopyTo: a copy plays on apart from its original, and the same moves
// give both the same tiles, for each generator, whether the copy is new
// or reused (one of the other generator's too).
func TestCopyTo(t *testing.T) {
	dirs := []Direction{Left, Up, Right, Down}
	for _, gen := range []Generator{PCG, ChaCha8} {
		for _, into := range []string{"new", "reused", "reused of the other generator"} {
			t.Run(gen.String()+"/"+into, func(t *testing.T) {
				g, err := gen.NewGame(4, 42)
				if err != nil {
					t.Fatal(err)
				}
				var dst *Game
				switch into {
				case "reused":
					dst, _ = gen.NewGame(4, 7)
				case "reused of the other generator":
					other := map[Generator]Generator{PCG: ChaCha8, ChaCha8: PCG}[gen]
					dst, _ = other.NewGame(4, 7)
				}
				for i := range 10 {
					g.Move(dirs[i%4])
				}
				c := g.CopyTo(dst)
				before := g.Board()
				for i := range 20 { // the copy moves on; the original stays
					c.Move(dirs[(i*3)%4])
				}
				if g.Board() != before || g.Moves() != 10 {
					t.Fatalf("moving the copy changed the original: moves %d", g.Moves())
				}
				c = g.CopyTo(c)
				for i := range 200 {
					d := dirs[(i*7)%4]
					if a, b := g.Move(d), c.Move(d); a != b || g.Board() != c.Board() || g.Score() != c.Score() {
						t.Fatalf("move %d: the original gave %+v, the copy %+v", i, a, b)
					}
				}
			})
		}
	}
}

// BenchmarkCopyTo is what a Play pays a move to be able to go back
// (game.Play.move): a copy into the one it keeps.
//
//	go test -run '^$' -bench CopyTo ./engine/
func BenchmarkCopyTo(b *testing.B) {
	g, err := Current.NewGame(4, 1)
	if err != nil {
		b.Fatal(err)
	}
	dst := g.CopyTo(nil)
	b.ReportAllocs()
	for b.Loop() {
		dst = g.CopyTo(dst)
	}
}
