package server_test

import (
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
)

// toBoard converts a protocol board to an engine board.
func toBoard(t testing.TB, rows [][]int) engine.Board {
	t.Helper()
	b, err := engine.NewBoard(len(rows))
	if err != nil {
		t.Fatal(err)
	}
	for r, row := range rows {
		if len(row) != len(rows) {
			t.Fatalf("row %d has %d cells, want %d", r, len(row), len(rows))
		}
		for c, v := range row {
			if v != 0 && (v < 2 || v&(v-1) != 0) {
				t.Fatalf("cell %d,%d = %d: not 0 or a power of two", r, c, v)
			}
			if v != 0 {
				b.Set(r, c, uint8(bits.TrailingZeros(uint(v))))
			}
		}
	}
	return b
}

// checkMove checks that next follows from prev by playing d under the
// rules: the engine's slide and merge, exactly one new 2 or 4 in a cell
// the slide left empty when the board changed, and score, moves, won and
// over to match.
func checkMove(t testing.TB, prev, next state, d engine.Direction) {
	t.Helper()
	if next.Error != nil {
		t.Fatalf("move %v: error %q", d, *next.Error)
	}
	want := toBoard(t, prev.Board)
	gained, moved := want.Move(d)
	got := toBoard(t, next.Board)
	if next.Moved != moved || next.Gained != gained {
		t.Fatalf("move %v on %v: moved=%v gained=%d, want moved=%v gained=%d", d, toBoard(t, prev.Board), next.Moved, next.Gained, moved, gained)
	}
	if next.Score != prev.Score+gained {
		t.Fatalf("move %v: score %d, want %d+%d", d, next.Score, prev.Score, gained)
	}
	wantMoves := prev.Moves
	if moved {
		wantMoves++
	}
	if next.Moves != wantMoves {
		t.Fatalf("move %v: moves %d, want %d", d, next.Moves, wantMoves)
	}
	n := want.Size()
	spawned := 0
	for r := range n {
		for c := range n {
			if got.At(r, c) == want.At(r, c) {
				continue
			}
			if !moved || want.At(r, c) != 0 || (got.At(r, c) != 1 && got.At(r, c) != 2) {
				t.Fatalf("move %v: cell %d,%d is %d, engine says %d (moved=%v)", d, r, c, got.Value(r, c), want.Value(r, c), moved)
			}
			spawned++
		}
	}
	if moved && spawned != 1 {
		t.Fatalf("move %v: %d new tiles, want 1", d, spawned)
	}
	if next.Won != (got.MaxExponent() >= engine.WinExponent(n)) {
		t.Fatalf("won = %v with max tile %d", next.Won, engine.Value(got.MaxExponent()))
	}
	if next.Over != !got.CanMove() {
		t.Fatalf("over = %v on %v", next.Over, got)
	}
}

var dirWords = map[engine.Direction][]string{
	engine.Up:    {"up", "u", "UP", "U"},
	engine.Right: {"right", "r", "Right", "R"},
	engine.Down:  {"down", "d", "DOWN", "D"},
	engine.Left:  {"left", "l", "lEfT", "L"},
}

// play sends up to n moves chosen by pick, checking every reply against
// the rules, and stops early when the game is over. It returns the last
// state.
func play(t testing.TB, b *botSession, first state, n int, pick func(i int) (engine.Direction, string)) state {
	t.Helper()
	prev := first
	for i := 0; i < n && !prev.Over; i++ {
		d, word := pick(i)
		b.send(word)
		next := b.mustRead()
		checkMove(t, prev, next, d)
		prev = next
	}
	return prev
}

// playToEnd plays random moves, each spelt one of the accepted ways, until
// the game is over; it returns the final state.
func playToEnd(t testing.TB, b *botSession, first state, rng *rand.Rand) state {
	t.Helper()
	last := play(t, b, first, 1_000_000, func(int) (engine.Direction, string) {
		d := engine.Directions()[rng.IntN(4)]
		words := dirWords[d]
		return d, words[rng.IntN(len(words))]
	})
	if !last.Over {
		t.Fatal("game did not end")
	}
	return last
}

// TestBotWholeGames plays whole games on every size a quick game allows
// and checks every reply against the rules, then that the session ends
// with status 0 and the game is recorded as ended.
func TestBotWholeGames(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "robot", newKey(t))
	rng := rand.New(rand.NewPCG(1, 2))
	best := map[int]int{}
	for _, size := range []int{3, 3, 4} {
		b := startBot(t, c, "--size "+strconv.Itoa(size))
		first := b.mustRead()
		if len(first.Board) != size || first.Moves != 0 || first.Score != 0 || first.Moved {
			t.Fatalf("first state %+v", first)
		}
		if tiles := toBoard(t, first.Board); tiles.Empty() != size*size-2 {
			t.Fatalf("new game has %d empty cells, want %d", tiles.Empty(), size*size-2)
		}
		last := playToEnd(t, b, first, rng)
		if _, ok := b.read(); ok {
			t.Fatal("output after the game ended")
		}
		if code := b.wait(); code != 0 {
			t.Fatalf("exit %d after game over; stderr %q", code, b.stderr.String())
		}
		// The finished game is on the bot leaderboard, ended.
		var rows []map[string]any
		out := run(t, c, "scores --bots --json --size "+strconv.Itoa(size), "")
		if err := json.Unmarshal([]byte(out.stdout), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("scores: %v %q", err, out.stdout)
		}
		best[size] = max(best[size], last.Score)
		if rows[0]["ended"] == nil || int(rows[0]["score"].(float64)) != best[size] {
			t.Fatalf("leaderboard row %v, want ended with best score %d", rows[0], best[size])
		}
		// A new bot session starts a new game, as the old one ended.
		b2 := startBot(t, c, "--size "+strconv.Itoa(size))
		if st := b2.mustRead(); st.Moves != 0 {
			t.Fatalf("after game over: resumed a game with %d moves", st.Moves)
		}
		b2.finish()
	}
}
