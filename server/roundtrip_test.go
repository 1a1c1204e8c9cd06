package server_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/wire"
)

// TestExportVerifyRoundTrip: every game of a seeded run (bots of every
// size from 3×3 to 5×5 playing seeded random moves to the end, over real
// SSH) exports as a record that verifies offline and on the server, with
// the score, moves and board the bot saw; the same record tampered with
// is refuted.
func TestExportVerifyRoundTrip(t *testing.T) {
	ts := startServer(t)
	rng := rand.New(rand.NewPCG(16, 2048))
	type finished struct {
		last  state
		moves int
	}
	games := map[int]finished{} // by size; one player each
	for size := 3; size <= 5; size++ {
		c := ts.dial(t, fmt.Sprintf("seeded%d", size), newKey(t))
		b := startBot(t, c, fmt.Sprintf("--size %d", size))
		st := b.mustRead()
		for !st.Over {
			b.send(engine.Directions()[rng.IntN(4)].String())
			st = b.mustRead()
		}
		if code := b.wait(); code != wire.ExitOK {
			t.Fatalf("%d×%d bot ended with %d", size, size, code)
		}
		games[size] = finished{st, st.Moves}
	}
	c := ts.dial(t, "checker", newKey(t))
	for size, g := range games {
		var rows []wire.ScoreEntry
		out := run(t, c, fmt.Sprintf("scores --bots --size %d --json", size), "")
		if err := json.Unmarshal([]byte(out.stdout), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("scores: %v %q", err, out.stdout)
		}
		id := strconv.FormatInt(rows[0].GameID, 10)
		exp := run(t, c, "export "+id, "")
		if exp.code != wire.ExitOK {
			t.Fatalf("export %s: %d %q", id, exp.code, exp.stderr)
		}
		rec, err := record.Parse(strings.NewReader(exp.stdout))
		if err != nil {
			t.Fatalf("game %s: %v", id, err)
		}
		v, err := record.Verify(rec)
		if err != nil || !v.Confirmed() {
			t.Fatalf("game %s: the exported record does not verify: %v %v", id, err, v.Mismatches)
		}
		if rec.Score != g.last.Score || len(rec.Moves) != g.moves || boardOf(g.last.Board) != boardOfRecord(rec) {
			t.Fatalf("game %s: record score %d, %d moves; the bot saw %d, %d", id, rec.Score, len(rec.Moves), g.last.Score, g.moves)
		}
		if r := run(t, c, "verify "+id, ""); r.code != wire.ExitOK || !strings.HasPrefix(r.stdout, "confirmed: game "+id) {
			t.Fatalf("verify %s on the server: %d %q %q", id, r.code, r.stdout, r.stderr)
		}

		// Tampered: a claimed score, a move, the seed.
		for _, tamper := range []struct{ what, from, to string }{
			{"score", fmt.Sprintf("\nscore %d\n", rec.Score), fmt.Sprintf("\nscore %d\n", rec.Score+4)},
			{"seed", fmt.Sprintf("\nseed %d\n", rec.Seed), fmt.Sprintf("\nseed %d\n", rec.Seed+1)},
			{"won", "\nwon " + yesNo(rec.Won) + "\n", "\nwon " + yesNo(!rec.Won) + "\n"},
		} {
			text := strings.Replace(exp.stdout, tamper.from, tamper.to, 1)
			if text == exp.stdout {
				t.Fatalf("game %s: no %s to tamper with", id, tamper.what)
			}
			bad, err := record.Parse(strings.NewReader(text))
			if err != nil {
				t.Fatalf("game %s, %s tampered: %v", id, tamper.what, err)
			}
			if v, err := record.Verify(bad); err == nil && v.Confirmed() {
				t.Errorf("game %s: a record with its %s tampered with is confirmed", id, tamper.what)
			}
		}
	}
}

// boardOfRecord is what boardOn reads off a screen of a record's board.
func boardOfRecord(r record.Record) string {
	rows := make([][]int, r.Size)
	for i := range rows {
		rows[i] = make([]int, r.Size)
		for j := range rows[i] {
			rows[i][j] = r.Board.Value(i, j)
		}
	}
	return boardOf(rows)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
