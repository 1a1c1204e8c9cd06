package reader

import (
	"testing"

	"github.com/ssh2048/ssh2048/engine"
)

func board(t *testing.T, s string) engine.Board {
	t.Helper()
	b, err := engine.ParseBoard(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMoveSentence is the sentences' golden table: each move's board,
// direction, spawn and score, and the one sentence it is told in.
func TestMoveSentence(t *testing.T) {
	spawn := func(row, col int, value uint8) engine.Result {
		return engine.Result{Moved: true, Spawn: engine.Spawn{Row: row, Col: col, Exp: value}}
	}
	for _, tt := range []struct {
		name  string
		board string
		d     engine.Direction
		res   engine.Result
		score int
		want  string
	}{
		{"merge in a row", "2 2 0 0/0 0 0 0/0 0 0 0/0 0 0 0", engine.Left, spawn(2, 3, 1), 120,
			"Left: 2 and 2 merged into 4 in row 1; new 2 at row 3, column 4. Score 120."},
		{"merge in a column", "2 0 0/2 0 0/4 0 4", engine.Down, spawn(0, 2, 1), 8,
			"Down: 2 and 2 merged into 4 in column 1; new 2 at row 1, column 3. Score 8."},
		{"merge up", "0 8 0/0 8 0/0 0 0", engine.Up, spawn(2, 2, 1), 16,
			"Up: 8 and 8 merged into 16 in column 2; new 2 at row 3, column 3. Score 16."},
		{"two merges in one row", "2 2 2 2/0 0 0 0/0 0 0 0/0 0 0 0", engine.Left, spawn(1, 0, 1), 8,
			"Left: 2 and 2 merged into 4, and 2 and 2 merged into 4, in row 1; new 2 at row 2, column 1. Score 8."},
		{"merges in several rows", "2 2 4 8/0 0 0 0/16 16 0 0/0 4 0 4", engine.Right, spawn(1, 0, 1), 48,
			"Right: 2 and 2 merged into 4 in row 1; 16 and 16 merged into 32 in row 3; 4 and 4 merged into 8 in row 4; new 2 at row 2, column 1. Score 48."},
		{"a 4 spawns", "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0", engine.Right, spawn(3, 0, 2), 0,
			"Right: tiles slide, nothing merges; new 4 at row 4, column 1. Score 0."},
		{"no-op move", "2 4 0 0/0 0 0 0/0 0 0 0/0 0 0 0", engine.Left, engine.Result{}, 36,
			"Left: nothing moves."},
		{"eight by eight, last column", "0 0 0 0 0 0 1024 1024/0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0/0 0 0 0 0 0 0 0",
			engine.Right, spawn(7, 7, 1), 2048,
			"Right: 1024 and 1024 merged into 2048 in row 1; new 2 at row 8, column 8. Score 2048."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := MoveSentence(Moved{Before: board(t, tt.board), Dir: tt.d, Result: tt.res, Score: tt.score})
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestBoardLines(t *testing.T) {
	got := BoardLines(board(t, "2 0 0/0 2048 0/4 0 8"))
	want := []string{"Row 1: 2, empty, empty.", "Row 2: empty, 2048, empty.", "Row 3: 4, empty, 8."}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %q, want %q", i+1, got[i], want[i])
		}
	}
}
