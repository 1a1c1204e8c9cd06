package engine

import (
	"math/rand/v2"
	"testing"
)

func TestMergesExamples(t *testing.T) {
	for _, tt := range []struct {
		board string
		d     Direction
		want  string
	}{
		{"2 2 2 2/0 0 0 0/0 0 0 0/0 0 0 0", Left, "4 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0"},
		{"2 2 4 8/0 0 0 0/0 0 0 0/0 0 0 0", Left, "4 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0"},
		{"2 2 4 8/0 0 0 0/0 0 0 0/0 0 0 0", Right, "0 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0"},
		{"4 4 4 0/0 0 0 0/0 0 0 0/0 0 0 0", Right, "0 0 0 8/0 0 0 0/0 0 0 0/0 0 0 0"},
		{"2 0 0/2 0 0/4 0 4", Up, "4 0 0/0 0 0/0 0 0"},
		{"2 0 0/2 0 0/4 0 4", Down, "0 0 0/4 0 0/0 0 0"},
	} {
		b, err := ParseBoard(tt.board)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Merges(tt.d).String(); got != tt.want {
			t.Errorf("%s %v: merges %s, want %s", tt.board, tt.d, got, tt.want)
		}
	}
}

// TestMergesAgreeWithMove: on random boards of every size, the merged
// tiles are tiles of the moved board, and their values add up to the
// points the move scored.
func TestMergesAgreeWithMove(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	for range 20000 {
		n := MinSize + rng.IntN(MaxSize-MinSize+1)
		b, _ := NewBoard(n)
		for r := range n {
			for c := range n {
				if rng.IntN(3) > 0 {
					b.Set(r, c, uint8(1+rng.IntN(4)))
				}
			}
		}
		for _, d := range Directions() {
			moved := b
			gained, _ := moved.Move(d)
			merges := b.Merges(d)
			sum := 0
			for r := range n {
				for c := range n {
					if e := merges.At(r, c); e != 0 {
						sum += Value(e)
						if moved.At(r, c) != e {
							t.Fatalf("%v %v: a merge of %d at (%d, %d), where the moved board has %d", b, d, Value(e), r, c, moved.Value(r, c))
						}
					}
				}
			}
			if sum != gained {
				t.Fatalf("%v %v: merges add up to %d, the move scored %d", b, d, sum, gained)
			}
		}
	}
}

func TestPathsExamples(t *testing.T) {
	b, err := ParseBoard("2 2 2 0/0 0 0 4/0 8 0 8/0 0 0 0")
	if err != nil {
		t.Fatal(err)
	}
	got := b.Paths(Right, nil)
	want := []Path{
		{0, 2, 0, 3, 1, true}, {0, 1, 0, 3, 1, true}, {0, 0, 0, 2, 1, false},
		{1, 3, 1, 3, 2, false},
		{2, 3, 2, 3, 3, true}, {2, 1, 2, 3, 3, true},
	}
	if len(got) != len(want) {
		t.Fatalf("paths %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("path %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestPathsAgreeWithMove: on random boards of every size and in every
// direction, laying each tile at the end of its path (a merged pair as
// one tile of double value) gives the board Move makes, and every tile
// of the board has one path.
func TestPathsAgreeWithMove(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 20000 {
		n := MinSize + rng.IntN(MaxSize-MinSize+1)
		b, _ := NewBoard(n)
		tiles := 0
		for r := range n {
			for c := range n {
				if rng.IntN(3) > 0 {
					b.Set(r, c, uint8(1+rng.IntN(4)))
					tiles++
				}
			}
		}
		for _, d := range Directions() {
			paths := b.Paths(d, nil)
			if len(paths) != tiles {
				t.Fatalf("%v %v: %d paths for %d tiles", b, d, len(paths), tiles)
			}
			laid, _ := NewBoard(n)
			for _, p := range paths {
				e := p.Exp
				if p.Merged {
					e++
				}
				laid.Set(p.ToRow, p.ToCol, e)
			}
			moved := b
			moved.Move(d)
			if laid != moved {
				t.Fatalf("%v %v: paths lay %v, Move makes %v", b, d, laid, moved)
			}
		}
	}
}

// TestDirectionAndSpawnOf: a move's direction is found back from the
// boards and the tile it added, and its new tile from the boards and the
// direction; boards more than one move apart give neither.
func TestDirectionAndSpawnOf(t *testing.T) {
	g, err := ChaCha8.NewGame(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	var before Board
	for i := range 30 {
		before = g.Board()
		var d Direction
		var res Result
		for _, d = range Directions() {
			if res = g.Move(d); res.Moved {
				break
			}
		}
		got, ok := DirectionOf(before, g.Board(), res.Spawn)
		// Two directions could give the same board; their merges are
		// what a screen tells.
		if !ok || before.Merges(got) != before.Merges(d) {
			t.Fatalf("move %d %v: direction %v %v", i, d, got, ok)
		}
		if sp, ok := SpawnOf(before, d, g.Board()); !ok || sp != res.Spawn {
			t.Fatalf("move %d %v: spawn %+v %v, want %+v", i, d, sp, ok, res.Spawn)
		}
	}
	start, _ := ChaCha8.NewGame(4, 3)
	if _, ok := DirectionOf(start.Board(), g.Board(), Spawn{}); ok {
		t.Fatal("boards many moves apart read as one move")
	}
	full, err := ParseBoard("2 4 8/16 32 64/128 256 512")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := SpawnOf(full, Left, full); ok {
		t.Fatal("a move that changed nothing has a new tile")
	}
}
