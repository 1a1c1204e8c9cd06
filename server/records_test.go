package server_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/record"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
)

// TestExportAndVerify: over real SSH, a finished bot game exports as a
// record that verifies offline and on the server; a game in play, an
// unknown game, a bad id and a forged score each get their own status.
func TestExportAndVerify(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "rec", newKey(t))

	st, id := endedBotGame(t, c, 3)

	exp := run(t, c, "export "+id, "")
	if exp.code != wire.ExitOK {
		t.Fatalf("export: %d %q", exp.code, exp.stderr)
	}
	rec, err := record.Parse(strings.NewReader(exp.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := record.Verify(rec); err != nil || !v.Confirmed() || rec.Score != st.Score || len(rec.Moves) != st.Moves {
		t.Fatalf("exported record: %v %v, score %d moves %d; the bot saw %d, %d", err, v.Mismatches, rec.Score, len(rec.Moves), st.Score, st.Moves)
	}
	if ver := run(t, c, "verify "+id, ""); ver.code != wire.ExitOK || !strings.HasPrefix(ver.stdout, "confirmed: game "+id) {
		t.Fatalf("verify: %d %q %q", ver.code, ver.stdout, ver.stderr)
	}

	// A game in play: its record is secret.
	live, liveID := liveBotGame(t, c, 4, 1)
	if r := run(t, c, "export "+liveID, ""); r.code != wire.ExitInPlay || r.stdout != "" || !strings.Contains(r.stderr, "still being played") {
		t.Fatalf("export of a game in play: %d %q %q", r.code, r.stdout, r.stderr)
	}
	live.finish()

	for _, tc := range []struct {
		cmd  string
		code int
		want string
	}{
		{"export 99999", wire.ExitNotFound, "no game 99999"},
		{"verify 99999", wire.ExitNotFound, "no game 99999"},
		{"export abc", wire.ExitUsage, "not a game id"},
		{"export", wire.ExitUsage, "want one game id"},
		{"verify 1 2", wire.ExitUsage, "want one game id"},
	} {
		if r := run(t, c, tc.cmd, ""); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: %d %q; want %d and %q", tc.cmd, r.code, r.stderr, tc.code, tc.want)
		}
	}

	// A score forged in the database is refuted.
	gameID, _ := strconv.ParseInt(liveID, 10, 64)
	if err := ts.store.AppendMove(context.Background(), gameID, 1, 0,
		store.MoveState{Score: 123456, MaxTile: 4096, Moves: 2, Board: "2 0 0 0/0 0 0 0/0 0 0 0/0 0 0 0"}); err != nil {
		t.Fatal(err)
	}
	if r := run(t, c, "verify "+liveID, ""); r.code != wire.ExitRefuted || !strings.HasPrefix(r.stdout, "refuted:") {
		t.Fatalf("verify of a forged game: %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestVerifyOneMove: verify counts a one-move game as "1 move", not "1
// moves".
func TestVerifyOneMove(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t, "one", newKey(t))
	b := startBot(t, c, "--size 4")
	dirs := []string{"left", "up", "right", "down"}
	for i, st := 0, b.mustRead(); st.Moves == 0; i++ {
		b.send(dirs[i%4])
		st = b.mustRead()
	}
	b.finish()
	var rows []wire.ScoreEntry
	out := run(t, c, "scores --size 4 --bots --json", "")
	if err := json.Unmarshal([]byte(out.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("scores: %v %q", err, out.stdout)
	}
	r := run(t, c, "verify "+strconv.FormatInt(rows[0].GameID, 10), "")
	if r.code != wire.ExitOK || !strings.Contains(r.stdout, ", 1 move\n") {
		t.Fatalf("verify: %d %q %q; want \", 1 move\"", r.code, r.stdout, r.stderr)
	}
}
