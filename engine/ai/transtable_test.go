package ai

import "testing"

func TestTransTableDepthAndGenerations(t *testing.T) {
	tt := newTransTable()
	const board = 0x1234_0000_0021_0001
	if _, ok := tt.lookup(board, 1); ok {
		t.Fatal("empty table answered")
	}
	tt.store(board, 3, 42)
	for _, tc := range []struct {
		depth int
		ok    bool
	}{{1, true}, {3, true}, {4, false}} {
		v, ok := tt.lookup(board, tc.depth)
		if ok != tc.ok || (ok && v != 42) {
			t.Errorf("lookup at depth %d = %v, %v; want hit %v", tc.depth, v, ok, tc.ok)
		}
	}
	tt.store(board, 2, 7) // shallower: must not replace the deeper value
	if v, ok := tt.lookup(board, 3); !ok || v != 42 {
		t.Errorf("a shallower store replaced the deeper entry: %v, %v", v, ok)
	}
	tt.store(board, 5, 9)
	if v, ok := tt.lookup(board, 5); !ok || v != 9 {
		t.Errorf("a deeper store did not replace the entry: %v, %v", v, ok)
	}
	tt.reset()
	if _, ok := tt.lookup(board, 1); ok {
		t.Error("entry survived reset")
	}
}

func TestTransTableCollisions(t *testing.T) {
	tt := newTransTable()
	// Boards that hash to the same slot: more than ttProbes of them must
	// evict some, never return a wrong board's value.
	var boards []uint64
	want := tt.slot(1)
	for b := uint64(1); len(boards) < 2*ttProbes; b++ {
		if tt.slot(b) == want {
			boards = append(boards, b)
		}
	}
	for i, b := range boards {
		tt.store(b, 1+i%3, float32(i))
	}
	hits := 0
	for i, b := range boards {
		if v, ok := tt.lookup(b, 1); ok {
			hits++
			if v != float32(i) {
				t.Errorf("board %#x: got %v, want %v", b, v, i)
			}
		}
	}
	if hits == 0 || hits > ttProbes {
		t.Errorf("%d of %d colliding boards found, want 1..%d", hits, len(boards), ttProbes)
	}
}

func TestTransTableGenerationWrap(t *testing.T) {
	tt := newTransTable()
	tt.store(5, 1, 1)
	tt.gen = maxGeneration
	tt.store(6, 1, 1)
	tt.reset()
	if tt.gen != 1 {
		t.Fatalf("generation after wrap = %d, want 1", tt.gen)
	}
	for _, b := range []uint64{5, 6} {
		if _, ok := tt.lookup(b, 1); ok {
			t.Errorf("board %d survived the wrap", b)
		}
	}
}
