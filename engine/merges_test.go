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
