package server_test

import (
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/wire"
)

// startReviewing starts a server whose game service reviews games on an
// AI pool of its own.
func startReviewing(t *testing.T) *testServer {
	t.Helper()
	pool := ai.NewPool(1)
	t.Cleanup(pool.Close) // after the server's stop, which Start's cleanup runs first
	s := servertest.StartGames(t, t.TempDir(), "127.0.0.1:0", []game.Option{game.WithReviews(pool)}, noBotRate)
	return &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}
}

// TestReviewCommand: `review --json` of an ended game is made once, with
// its progress on stderr, then served from the store, the same bytes;
// the summary names the accuracy and the worst moves; a game in play is
// reviewed for its own player only.
func TestReviewCommand(t *testing.T) {
	ts := startReviewing(t)
	c := ts.dial(t, "rev", newKey(t))
	st, id := endedBotGame(t, c, 3)

	other := ts.dial(t, "reader", newKey(t))
	first := run(t, other, "review --json "+id, "")
	if first.code != wire.ExitOK || !strings.Contains(first.stderr, "review: 100%") {
		t.Fatalf("review --json: %d, stderr %q", first.code, first.stderr)
	}
	r, err := review.Parse([]byte(first.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != review.Version || len(r.Moves) != st.Moves || r.Score != st.Score || !r.Ended || len(r.Checkpoints) == 0 {
		t.Errorf("review of %d moves, score %d, ended %v, %d checkpoints; the bot saw %d moves, score %d",
			len(r.Moves), r.Score, r.Ended, len(r.Checkpoints), st.Moves, st.Score)
	}
	again := run(t, c, "review --json "+id, "")
	if again.code != wire.ExitOK || again.stdout != first.stdout || again.stderr != "" {
		t.Errorf("the stored review: %d, stderr %q, same bytes: %v", again.code, again.stderr, again.stdout == first.stdout)
	}
	sum := run(t, other, "review "+id, "")
	if sum.code != wire.ExitOK || !strings.Contains(sum.stdout, "Review of game "+id+" by rev") ||
		!strings.Contains(sum.stdout, "Accuracy ") || !strings.Contains(sum.stdout, "With the same dice") {
		t.Errorf("summary: %d %q %q", sum.code, sum.stdout, sum.stderr)
	}
	if worst := strings.Count(sum.stdout, "\nmove "); worst == 0 || worst > 5 {
		t.Errorf("summary shows %d worst moves:\n%s", worst, sum.stdout)
	}

	live, liveID := liveBotGame(t, c, 4, 3)
	if r := run(t, other, "review "+liveID, ""); r.code != wire.ExitInPlay || r.stdout != "" || !strings.Contains(r.stderr, "still being played") {
		t.Errorf("review of another's game in play: %d %q %q", r.code, r.stdout, r.stderr)
	}
	own := run(t, c, "review --json "+liveID, "")
	if own.code != wire.ExitOK {
		t.Fatalf("review of one's own game in play: %d %q", own.code, own.stderr)
	}
	if r, err := review.Parse([]byte(own.stdout)); err != nil || r.Ended || len(r.Checkpoints) != 0 || len(r.Moves) < 3 {
		t.Errorf("review of a game in play: %v, %+v", err, r)
	}
	live.finish()

	for _, tc := range []struct {
		cmd  string
		code int
		want string
	}{
		{"review 99999", wire.ExitNotFound, "no game 99999"},
		{"review abc", wire.ExitUsage, "not a game id"},
		{"review --bogus 1", wire.ExitUsage, "--bogus"},
	} {
		if r := run(t, other, tc.cmd, ""); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: %d %q", tc.cmd, r.code, r.stderr)
		}
	}
}
