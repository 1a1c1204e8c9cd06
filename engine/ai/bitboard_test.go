package ai

import (
	"math/rand/v2"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
)

func mustParse(t testing.TB, s string) engine.Board {
	t.Helper()
	b, err := engine.ParseBoard(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return b
}

// randomBoard returns a 4×4 board whose cells come from a small random
// alphabet, so that equal neighbours (merges) and gaps are common. At most
// one cell holds 2^15: two would merge into 2^16 in the engine, which a
// Bitboard cannot hold (useBitboard routes such boards to the generic search).
func randomBoard(rng *rand.Rand) engine.Board {
	b, _ := engine.NewBoard(4)
	alphabet := make([]uint8, 2+rng.IntN(5))
	for i := range alphabet {
		alphabet[i] = uint8(rng.IntN(MaxBitboardExponent + 1))
	}
	alphabet[0] = 0
	top := false
	for r := range 4 {
		for c := range 4 {
			e := alphabet[rng.IntN(len(alphabet))]
			if e == MaxBitboardExponent {
				if top {
					e--
				}
				top = true
			}
			b.Set(r, c, e)
		}
	}
	return b
}

// crossCheckBoards is how many random boards the cross-check plays in every
// direction: a million normally, fewer where each costs much more.
func crossCheckBoards() int {
	switch {
	case raceEnabled:
		return 50_000
	case testing.Short():
		return 200_000
	}
	return 1_000_000
}

func TestBitboardMatchesEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 2048))
	n := crossCheckBoards()
	merges := 0
	for i := range n {
		b := randomBoard(rng)
		bb, ok := FromBoard(b)
		if !ok {
			t.Fatalf("FromBoard(%s) refused a 4×4 board with small tiles", b.String())
		}
		if got := bb.Board(); got != b {
			t.Fatalf("round trip %s: got %s", b.String(), got.String())
		}
		for _, d := range engine.Directions() {
			want := b
			wantGained, wantMoved := want.Move(d)
			gotBB, gotGained := bb.Move(d)
			if got := gotBB.Board(); got != want || gotGained != wantGained || (gotBB != bb) != wantMoved {
				t.Fatalf("board %d %s move %v:\nbitboard %s gained %d moved %v\nengine   %s gained %d moved %v",
					i, b.String(), d, got.String(), gotGained, gotBB != bb, want.String(), wantGained, wantMoved)
			}
			if wantGained > 0 {
				merges++
			}
		}
	}
	// The alphabet is there to make merges common; make sure it does.
	if merges < n/2 {
		t.Errorf("only %d of %d moves merged anything; the cross-check is too weak", merges, 4*n)
	}
}

func TestBitboardMoves(t *testing.T) {
	tests := []struct {
		board  string
		dir    engine.Direction
		want   string
		gained int
	}{
		{"2 2 2 2/0 0 0 0/0 0 0 0/0 0 0 0", engine.Left, "4 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 8},
		{"2 2 2 0/0 0 0 0/0 0 0 0/0 0 0 0", engine.Right, "0 0 2 4/0 0 0 0/0 0 0 0/0 0 0 0", 4},
		{"2 0 0 0/2 0 0 0/4 0 0 0/4 0 0 0", engine.Up, "4 0 0 0/8 0 0 0/0 0 0 0/0 0 0 0", 12},
		{"0 0 0 8/0 0 0 0/0 0 0 8/0 0 0 16", engine.Down, "0 0 0 0/0 0 0 0/0 0 0 16/0 0 0 16", 16},
		{"4 2 2 0/0 0 0 0/0 0 0 0/0 0 0 0", engine.Left, "4 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 4},
		{"32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0", engine.Left, "32768 32768 0 0/0 0 0 0/0 0 0 0/0 0 0 0", 0},
		{"2 4 8 16/4 8 16 32/8 16 32 64/16 32 64 128", engine.Up, "2 4 8 16/4 8 16 32/8 16 32 64/16 32 64 128", 0},
	}
	for _, tc := range tests {
		t.Run(tc.board+" "+tc.dir.String(), func(t *testing.T) {
			bb, ok := FromBoard(mustParse(t, tc.board))
			if !ok {
				t.Fatal("FromBoard refused")
			}
			got, gained := bb.Move(tc.dir)
			if g := got.Board(); g.String() != tc.want || gained != tc.gained {
				t.Errorf("got %s (+%d), want %s (+%d)", g.String(), gained, tc.want, tc.gained)
			}
		})
	}
}

func TestFromBoardRefuses(t *testing.T) {
	three, _ := engine.NewBoard(3)
	big, _ := engine.NewBoard(4)
	big.Set(1, 2, 16)
	for name, b := range map[string]engine.Board{"3×3": three, "65536 tile": big} {
		if _, ok := FromBoard(b); ok {
			t.Errorf("%s: FromBoard accepted %s", name, b.String())
		}
	}
}

func TestTransposeAndCounts(t *testing.T) {
	b := mustParse(t, "2 4 0 0/8 0 0 0/0 0 16 0/0 2 0 32768")
	bb, _ := FromBoard(b)
	tb := Bitboard(transpose(uint64(bb)))
	for r := range 4 {
		for c := range 4 {
			if tb.At(r, c) != bb.At(c, r) {
				t.Fatalf("transpose: (%d,%d) = %d, want %d", r, c, tb.At(r, c), bb.At(c, r))
			}
		}
	}
	if got := bb.Empty(); got != b.Empty() {
		t.Errorf("Empty = %d, want %d", got, b.Empty())
	}
	if got := Bitboard(0).Empty(); got != 16 {
		t.Errorf("empty board: Empty = %d, want 16", got)
	}
	if got := distinctTiles(uint64(bb)); got != 5 { // 2 4 8 16 32768
		t.Errorf("distinctTiles = %d, want 5", got)
	}
}

// sink keeps benchmark results alive.
var sink uint64

func BenchmarkBitboardMove(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var boards [1024]Bitboard // an array: the index needs no bounds check
	for i := range boards {
		boards[i], _ = FromBoard(randomBoard(rng))
	}
	t := SharedTables()
	var acc Bitboard
	for i := 0; b.Loop(); i++ {
		acc ^= t.Move(boards[i&1023], engine.Direction(i&3))
	}
	sink = uint64(acc)
}

// BenchmarkEngineMove is the generic engine's move on the same boards, for
// comparison.
func BenchmarkEngineMove(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	boards := make([]engine.Board, 1024)
	for i := range boards {
		boards[i] = randomBoard(rng)
	}
	var acc int
	for i := 0; b.Loop(); i++ {
		nb := boards[i&1023]
		g, _ := nb.Move(engine.Direction(i & 3))
		acc += g
	}
	sink = uint64(acc)
}

// FuzzBitboardMatchesEngine cross-checks any packed board (bar two 2^15
// tiles, which the bitboard deliberately does not merge) in every direction.
func FuzzBitboardMatchesEngine(f *testing.F) {
	f.Add(uint64(0x1111_0000_0000_0000))
	f.Add(uint64(0x0000_2121_0000_3303))
	f.Add(uint64(0xFEDC_BA98_7654_3210))
	f.Fuzz(func(t *testing.T, x uint64) {
		bb := Bitboard(x)
		if _, exact := useBitboard(bb.Board()); !exact {
			t.Skip()
		}
		for _, d := range engine.Directions() {
			want := bb.Board()
			wantGained, _ := want.Move(d)
			got, gained := bb.Move(d)
			if got.Board() != want || gained != wantGained {
				t.Fatalf("%s %v: bitboard %s +%d, engine %s +%d",
					bb.Board().String(), d, got.Board().String(), gained, want.String(), wantGained)
			}
		}
	})
}
