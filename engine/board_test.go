package engine

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func mustParse(t testing.TB, s string) Board {
	t.Helper()
	b, err := ParseBoard(s)
	if err != nil {
		t.Fatalf("ParseBoard(%q): %v", s, err)
	}
	return b
}

func TestSlideLeft(t *testing.T) {
	tests := []struct {
		in, want string
		gained   int
		moved    bool
	}{
		{"2 2 2 2", "4 4 0 0", 8, true},
		{"4 4 8 0", "8 8 0 0", 8, true},
		{"2 2 4 8", "4 4 8 0", 4, true},
		{"2 0 2 4", "4 4 0 0", 4, true},
		{"0 0 0 2", "2 0 0 0", 0, true},
		{"2 4 8 16", "2 4 8 16", 0, false},
		{"2 0 0 0", "2 0 0 0", 0, false},
		{"0 0 0 0", "0 0 0 0", 0, false},
		{"4 2 2 0", "4 4 0 0", 4, true},
		{"8 8 8 0", "16 8 0 0", 16, true},
		{"2 2 0 0 2 2", "4 4 0 0 0 0", 8, true},
		{"4 0 4 0 4 0 4 2", "8 8 2 0 0 0 0 0", 16, true},
		{"2 4 2", "2 4 2", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			cells := rowExps(t, tt.in)
			var row uint64
			for i, c := range cells {
				row |= uint64(c) << (8 * i)
			}
			out, gained := slideLeft(row)
			moved := out != row
			if got := rowText(out, len(cells)); got != tt.want {
				t.Errorf("slideLeft(%s) = %s, want %s", tt.in, got, tt.want)
			}
			if gained != tt.gained || moved != tt.moved {
				t.Errorf("slideLeft(%s) gained %d moved %v, want %d %v", tt.in, gained, moved, tt.gained, tt.moved)
			}
		})
	}
}

func rowExps(t *testing.T, s string) []uint8 {
	t.Helper()
	var row []uint8
	for _, f := range strings.Fields(s) {
		exp, err := parseTile(f)
		if err != nil {
			t.Fatal(err)
		}
		row = append(row, exp)
	}
	return row
}

func rowText(row uint64, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(Value(uint8(row >> (8 * i))))
	}
	return strings.Join(parts, " ")
}

// The start board is deliberately asymmetric so that a mix-up of directions
// (or of rotate and rotate-back) gives a different answer.
func TestMoveDirections(t *testing.T) {
	const start = "2 2 4 0/0 4 4 8/2 0 2 2/16 0 0 16"
	tests := []struct {
		dir    Direction
		want   string
		gained int
	}{
		{Left, "4 4 0 0/8 8 0 0/4 2 0 0/32 0 0 0", 4 + 8 + 4 + 32},
		{Right, "0 0 4 4/0 0 8 8/0 0 2 4/0 0 0 32", 4 + 8 + 4 + 32},
		{Up, "4 2 8 8/16 4 2 2/0 0 0 16/0 0 0 0", 4 + 8},
		{Down, "0 0 0 0/0 0 0 8/4 2 8 2/16 4 2 16", 4 + 8},
	}
	for _, tt := range tests {
		t.Run(tt.dir.String(), func(t *testing.T) {
			b := mustParse(t, start)
			gained, moved := b.Move(tt.dir)
			if got := b.String(); got != tt.want {
				t.Errorf("%v on %s:\n got %s\nwant %s", tt.dir, start, got, tt.want)
			}
			if gained != tt.gained || !moved {
				t.Errorf("%v gained %d moved %v, want %d true", tt.dir, gained, moved, tt.gained)
			}
		})
	}
}

func TestMoveNoChange(t *testing.T) {
	b := mustParse(t, "2 4 8/0 0 0/0 0 0")
	before := b
	for _, d := range []Direction{Left, Up} {
		if gained, moved := b.Move(d); moved || gained != 0 || b != before {
			t.Errorf("%v on %s changed it to %s (gained %d)", d, before, b, gained)
		}
	}
}

func TestMoveLargeBoard(t *testing.T) {
	b := mustParse(t, strings.Repeat("2 2 2 2 2 2 2 2/", 7)+"0 0 0 0 0 0 0 4")
	b.Move(Right)
	want := strings.Repeat("0 0 0 0 4 4 4 4/", 7) + "0 0 0 0 0 0 0 4"
	if b.String() != want {
		t.Errorf("got %s\nwant %s", b, want)
	}
}

func TestMergeCapAtMaxExponent(t *testing.T) {
	b := mustParse(t, "72057594037927936 72057594037927936 0/0 0 0/0 0 0")
	gained, moved := b.Move(Left)
	if moved || gained != 0 {
		t.Errorf("two 2^56 tiles merged: gained %d, board %s", gained, b)
	}
}

// TestLargestTilesFitInt64: a full 8×8 board of the largest tiles sums
// to an int64, and so do the points of a move that merges every pair of
// the tiles one below them.
func TestLargestTilesFitInt64(t *testing.T) {
	full, below := filledBoard(t, MaxExponent), filledBoard(t, MaxExponent-1)
	if sum := full.Sum(); sum <= 0 || sum/Value(MaxExponent) != MaxSize*MaxSize {
		t.Errorf("a board of 2^%d tiles sums to %d", MaxExponent, sum)
	}
	gained, _ := below.Move(Left)
	if gained <= 0 || gained/Value(MaxExponent) != MaxSize*MaxSize/2 {
		t.Errorf("merging 2^%d tiles pairwise on a full board gains %d", MaxExponent-1, gained)
	}
}

// filledBoard is a MaxSize board with a 2^exp tile in every cell.
func filledBoard(t *testing.T, exp uint8) Board {
	t.Helper()
	b, err := NewBoard(MaxSize)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxSize * MaxSize {
		b.Set(i/MaxSize, i%MaxSize, exp)
	}
	return b
}

func TestCanMove(t *testing.T) {
	tests := []struct {
		board string
		want  bool
	}{
		{"2 4 2/4 2 4/2 4 2", false},
		{"2 4 2/4 2 4/2 4 4", true},
		{"2 4 2/4 2 4/2 2 8", true},
		{"2 4 2/4 2 8/2 4 8", true},
		{"2 4 2/4 0 4/2 4 2", true},
		{"2 4 8 16/16 8 4 2/2 4 8 16/16 8 4 2", false},
	}
	for _, tt := range tests {
		b := mustParse(t, tt.board)
		if got := b.CanMove(); got != tt.want {
			t.Errorf("CanMove(%s) = %v, want %v", tt.board, got, tt.want)
		}
		any := false
		for _, d := range Directions() {
			c := b
			_, moved := c.Move(d)
			any = any || moved
		}
		if any != tt.want {
			t.Errorf("%s: some direction moves = %v, CanMove says %v", tt.board, any, tt.want)
		}
	}
}

func TestRotate(t *testing.T) {
	b := mustParse(t, "2 4 0/0 8 0/0 0 16")
	want := "0 0 2/0 8 4/16 0 0"
	if got := b.Rotate().String(); got != want {
		t.Errorf("Rotate(%s) = %s, want %s", b, got, want)
	}
}

// A move in any direction equals rotating the board until that move is
// "left", moving left, and rotating back: the definition the fast path in
// Board.Move must agree with.
func TestMoveEqualsRotateSlideLeft(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// quarter turns clockwise that bring direction d to "left".
	turns := map[Direction]int{Left: 0, Down: 1, Right: 2, Up: 3}
	for range 2000 {
		b := randomBoard(rng, MinSize+rng.IntN(MaxSize-MinSize+1))
		for _, d := range Directions() {
			want := b
			for range turns[d] {
				want = want.Rotate()
			}
			wantGained, wantMoved := want.Move(Left)
			for range (4 - turns[d]) % 4 {
				want = want.Rotate()
			}
			got := b
			gained, moved := got.Move(d)
			if got != want || gained != wantGained || moved != wantMoved {
				t.Fatalf("%v on %s: got %s (%d, %v), rotate-slide-left gives %s (%d, %v)",
					d, b, got, gained, moved, want, wantGained, wantMoved)
			}
		}
	}
}

func TestParseBoardRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		b := randomBoard(rng, MinSize+rng.IntN(MaxSize-MinSize+1))
		got, err := ParseBoard(b.String())
		if err != nil || got != b {
			t.Fatalf("ParseBoard(%q) = %v, %v", b.String(), got, err)
		}
		// What String writes is read in one pass.
		if fast, ok := parseCanonical(b.String()); !ok || fast != b {
			t.Fatalf("parseCanonical(%q) = %v, %v", b.String(), fast, ok)
		}
	}
}

func TestParseBoardErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "empty text"},
		{"  ", "empty text"},
		{"2 2/2 2", "2 rows"},
		{"2 2 2/2 2/2 2 2", "row 2 has 2 cells, want 3"},
		{"2 2 2/2 2 2/2 2 x", `row 3 cell 3: "x" is not a number`},
		{"2 2 2/2 3 2/2 2 2", "row 2 cell 2: 3 is not a power of two"},
		{"1 0 0/0 0 0/0 0 0", "1 is not a power of two"},
		{"-2 0 0/0 0 0/0 0 0", `"-2" is not a number`},
		{"9223372036854775808 0 0/0 0 0/0 0 0", "larger than 2^56"},
		{"144115188075855872 0 0/0 0 0/0 0 0", "tile 2^57 is larger than 2^56"},
		{strings.Repeat("0 0 0 0 0 0 0 0 0/", 8) + "0 0 0 0 0 0 0 0 0", "9 rows"},
		{"2 2 2/2 2 2/2 2", "row 3 has 2 cells, want 3"},
		{"2 2 2/2 2 2 2/2 2 2", "row 2 has 4 cells, want 3"},
		{"2 2 2/2 2 2/2 2 2/", "row 1 has 3 cells, want 4"},
		{"2 2 2/2 2 2/2 2 72057594037927936", ""},
		{"2 2 2/2 2 2/2 2 18446744073709551616", `"18446744073709551616" is not a number`},
		{"2 2 2/2 2 2/2 2 12345678901234567890", "not a power of two"},
	}
	for _, tt := range tests {
		_, err := ParseBoard(tt.in)
		if tt.want == "" { // the largest tile: no error
			if err != nil {
				t.Errorf("ParseBoard(%q): %v", tt.in, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrBoardText) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseBoard(%q) error = %v, want ErrBoardText mentioning %q", tt.in, err, tt.want)
		}
	}
}

func TestParseDirection(t *testing.T) {
	for in, want := range map[string]Direction{
		"up": Up, "U": Up, "Down": Down, "d": Down, "LEFT": Left, "l": Left, "right": Right, "R": Right,
	} {
		if got, err := ParseDirection(in); err != nil || got != want {
			t.Errorf("ParseDirection(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "upp", " up", "north"} {
		if _, err := ParseDirection(in); !errors.Is(err, ErrDirection) {
			t.Errorf("ParseDirection(%q) error = %v, want ErrDirection", in, err)
		}
	}
}

func TestNewBoardSize(t *testing.T) {
	for _, n := range []int{-1, 0, 2, 9} {
		if _, err := NewBoard(n); !errors.Is(err, ErrSize) {
			t.Errorf("NewBoard(%d) error = %v, want ErrSize", n, err)
		}
	}
}

// randomBoard fills about two thirds of the cells with small tiles, so that
// merges and slides are both common.
func randomBoard(rng *rand.Rand, size int) Board {
	b, _ := NewBoard(size)
	for i := range size * size {
		if rng.IntN(3) > 0 {
			b.Set(i/size, i%size, uint8(1+rng.IntN(5)))
		}
	}
	return b
}

// benchBoards are a mid-game board of each size a player most often
// plays and of the largest.
var benchBoards = []struct {
	name string
	text string
}{
	{"4x4", "2 4 8 16/0 0 2 0/1024 2048 4 2/0 0 0 4"},
	{"8x8", "2 4 8 16 0 0 2 0/1024 2048 4 2 0 0 0 4/0 0 0 0 2 0 0 0/32 64 128 256 512 4 2 0/" +
		"0 0 0 0 0 0 0 0/2 0 2 0 4 0 4 0/16 8 4 2 0 0 0 0/0 0 0 0 0 0 0 2"},
}

// BenchmarkParseBoard is the store's check of every move's board.
func BenchmarkParseBoard(b *testing.B) {
	for _, bb := range benchBoards {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ParseBoard(bb.text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBoardString is the text of every move's board, as the store
// keeps it.
func BenchmarkBoardString(b *testing.B) {
	for _, bb := range benchBoards {
		board, err := ParseBoard(bb.text)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if board.String() == "" {
					b.Fatal("no text")
				}
			}
		})
	}
}
