package record

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
)

// played plays a seeded random game, to the end or for at most n moves.
func played(t testing.TB, gen engine.Generator, size int, seed uint64, n int) Record {
	t.Helper()
	g, err := gen.NewGame(size, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	var dirs []engine.Direction
	for len(dirs) < n && !g.Over() {
		d := engine.Direction(rng.IntN(4))
		if g.Move(d).Moved {
			dirs = append(dirs, d)
		}
	}
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	return Of(g, dirs, Record{GameID: int64(seed), Player: "ann", Key: "SHA256:abcdefgh", Kind: "human",
		Started: start, Ended: start.Add(time.Hour)})
}

func text(t testing.TB, r Record) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestRoundTripAndVerify(t *testing.T) {
	for _, gen := range []engine.Generator{engine.PCG, engine.ChaCha8} {
		for size := engine.MinSize; size <= engine.MaxSize; size++ {
			for seed := range uint64(5) {
				r := played(t, gen, size, seed, 5000)
				got, err := Parse(strings.NewReader(text(t, r)))
				if err != nil {
					t.Fatalf("%v %d×%d seed %d: %v", gen, size, size, seed, err)
				}
				if !reflect.DeepEqual(got, r) {
					t.Fatalf("round trip: got %+v, want %+v", got, r)
				}
				v, err := Verify(got)
				if err != nil || !v.Confirmed() {
					t.Fatalf("%v %d×%d seed %d: %v %v", gen, size, size, seed, err, v.Mismatches)
				}
			}
		}
	}
}

func TestTamperedRecordIsRefuted(t *testing.T) {
	r := played(t, engine.ChaCha8, 4, 1, 300)
	for name, tamper := range map[string]func(*Record){
		"score":    func(r *Record) { r.Score += 4 },
		"max tile": func(r *Record) { r.MaxTile *= 2 },
		"won":      func(r *Record) { r.Won = !r.Won },
		"board":    func(r *Record) { r.Board.Set(0, 0, r.Board.At(0, 0)+1) },
		"seed":     func(r *Record) { r.Seed++ },
		"a move": func(r *Record) {
			r.Moves = append([]engine.Direction(nil), r.Moves...)
			r.Moves[len(r.Moves)/2] = (r.Moves[len(r.Moves)/2] + 1) % 4
		},
		"one move less": func(r *Record) { r.Moves = r.Moves[:len(r.Moves)-1] },
	} {
		bad := r
		tamper(&bad)
		parsed, err := Parse(strings.NewReader(text(t, bad)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v, err := Verify(parsed)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v.Confirmed() {
			t.Errorf("tampered %s: confirmed", name)
		}
	}
}

func TestParseErrors(t *testing.T) {
	good := text(t, played(t, engine.ChaCha8, 3, 2, 40))
	lines := strings.SplitAfter(good, "\n")
	for _, tc := range []struct {
		name string
		text string
		want error
	}{
		{"empty", "", ErrTruncated},
		{"not a record", "hello\n", ErrMalformed},
		{"newer format", strings.Replace(good, "record v1", "record v2", 1), ErrNewer},
		{"bad version", strings.Replace(good, "record v1", "record vX", 1), ErrMalformed},
		{"unknown generator", strings.Replace(good, "generator chacha8", "generator quantum", 1), ErrNewer},
		{"missing field", strings.Replace(good, "kind human\n", "", 1), ErrMalformed},
		{"bad size", strings.Replace(good, "size 3\n", "size 12\n", 1), ErrMalformed},
		{"bad won", strings.Replace(good, "won no\n", "won maybe\n", 1), ErrMalformed},
		{"bad move letter", strings.Join(lines[:15], "") + "x" + lines[15][1:] + strings.Join(lines[16:], ""), ErrMalformed},
		{"more moves announced", strings.Replace(good, "moves 40\n", "moves 41\n", 1), ErrMalformed},
		{"fewer moves announced", strings.Replace(good, "moves 40\n", "moves 39\n", 1), ErrMalformed},
		{"no end", strings.TrimSuffix(good, "end\n"), ErrTruncated},
		{"cut in the header", strings.Join(lines[:5], ""), ErrTruncated},
		{"cut in the moves", good[:len(good)-20], ErrTruncated},
		{"board of another size", strings.Replace(good, "size 3\n", "size 4\n", 1), ErrMalformed},
		{"too many moves", strings.Replace(good, "moves 40\n", "moves 99999999\n", 1), ErrMalformed},
	} {
		_, err := Parse(strings.NewReader(tc.text))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
	}
}

// FuzzParse: Parse fails only with its three errors; a record it reads
// is written and read back as the same record (its times to the second,
// its text fields on one line), in the same text, and Verify replays it.
func FuzzParse(f *testing.F) {
	f.Add(text(f, played(f, engine.ChaCha8, 4, 3, 50)))
	f.Add(text(f, played(f, engine.PCG, 3, 1, 10)))
	f.Add("ssh2048 game record v1\n")
	f.Fuzz(func(t *testing.T, in string) {
		r, err := Parse(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrNewer) {
				t.Fatalf("Parse error %v is none of ErrMalformed, ErrTruncated, ErrNewer", err)
			}
			return
		}
		written := text(t, r)
		again, err := Parse(strings.NewReader(written))
		if err != nil {
			t.Fatalf("a parsed record does not parse once written: %v\n%s", err, written)
		}
		if rewritten := text(t, again); rewritten != written {
			t.Fatalf("written, read and written again:\n%s\nwas\n%s", rewritten, written)
		}
		for name, times := range map[string][2]time.Time{"started": {r.Started, again.Started}, "ended": {r.Ended, again.Ended}} {
			if !times[0].Truncate(time.Second).Equal(times[1]) {
				t.Fatalf("%s %v written and read again: %v", name, times[0], times[1])
			}
		}
		want := r
		want.Player, want.Key, want.Kind = oneLine(r.Player), oneLine(r.Key), oneLine(r.Kind)
		want.Started, want.Ended, again.Started, again.Ended = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(again, want) {
			t.Fatalf("written and parsed again: %+v, was %+v", again, want)
		}
		if _, err := Verify(r); err != nil {
			t.Fatalf("verify of a parsed record: %v", err)
		}
	})
}
