package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/review"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// startReviewing starts a server whose game service reviews games on an
// AI pool of its own.
func startReviewing(t *testing.T, opts ...func(*server.Config)) *testServer {
	t.Helper()
	pool := ai.NewPool(1)
	t.Cleanup(pool.Close) // after the server's stop, which Start's cleanup runs first
	s := servertest.StartGames(t, t.TempDir(), "127.0.0.1:0", []game.Option{game.WithReviews(pool)}, append(opts, noBotRate)...)
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

// TestAdminPlayerAccuracy: `admin player` tells the mean accuracy of the
// stored reviews of the player's games played by hand, and of how many
// games; a reviewed bot game does not count, and the command makes no
// review (the one asked for after it is made then, with its progress).
func TestAdminPlayerAccuracy(t *testing.T) {
	adminKey, evaKey := newKey(t), newKey(t)
	ts := startReviewing(t, servertest.Moderated(t, adminKey.PublicKey()))
	admin, eva := ts.dial(t, "root", adminKey), ts.dial(t, "eva", evaKey)
	fingerprint := gossh.FingerprintSHA256(evaKey.PublicKey())
	_, botID := endedBotGame(t, eva, 3)
	if r := run(t, eva, "review "+botID, ""); r.code != wire.ExitOK {
		t.Fatalf("review of the bot game: %+v", r)
	}
	// Games played by hand, as the game screen stores them.
	ctx := t.Context()
	p, err := ts.store.FindPlayer(ctx, fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	human := []int64{storedEndedGame(t, ts.store, p.ID), storedEndedGame(t, ts.store, p.ID)}
	player := func(want string) {
		t.Helper()
		r := run(t, admin, "admin player "+fingerprint, "")
		if r.code != wire.ExitOK || !strings.Contains(r.stdout, "\n"+want+"\n") {
			t.Fatalf("admin player: %d %q %q, want the line %q", r.code, r.stdout, r.stderr, want)
		}
	}
	player("accuracy: none reviewed of 2 games played by hand")

	made := run(t, eva, fmt.Sprintf("review --json %d", human[0]), "")
	if made.code != wire.ExitOK || !strings.Contains(made.stderr, "review: 100%") {
		t.Fatalf("review of a game played by hand, not made before: %d, stderr %q", made.code, made.stderr)
	}
	r, err := review.Parse([]byte(made.stdout))
	if err != nil {
		t.Fatal(err)
	}
	player(fmt.Sprintf("accuracy: %.1f, the mean over 1 reviewed of 2 games played by hand", r.Accuracy))
}

// stuckEvaluator is an AI whose searches never end until released, and
// says when the first one began.
type stuckEvaluator struct {
	began   chan struct{}
	once    sync.Once
	release chan struct{}
}

func (e *stuckEvaluator) Evaluate(ctx context.Context, _ engine.Board, _ int) (ai.Evaluation, error) {
	e.once.Do(func() { close(e.began) })
	select {
	case <-e.release:
	case <-ctx.Done():
	}
	return ai.Evaluation{}, errors.New("released")
}

// TestReviewShutdown: a `review` waiting for its review when the server
// restarts ends at once with the restart line and status, rather than
// holding the shutdown until its deadline.
func TestReviewShutdown(t *testing.T) {
	ev := &stuckEvaluator{began: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(ev.release) })
	s := servertest.StartGames(t, t.TempDir(), "127.0.0.1:0", []game.Option{game.WithReviews(ev)}, noBotRate)
	ts := &testServer{srv: s.Srv, store: s.Store, addr: s.Addr, dir: s.Dir, logs: s.Logs}
	c := ts.dial(t, "rev", newKey(t))
	_, id := endedBotGame(t, c, 3)
	done := make(chan result, 1)
	go func() { done <- run(t, c, "review "+id, "") }()
	<-ev.began
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with a review waiting: %v", err)
	}
	r := <-done
	if r.code != wire.ExitRestart || !strings.Contains(r.stderr, "restarting") {
		t.Fatalf("review at shutdown: exit %d, stderr %q; want %d and the restart line", r.code, r.stderr, wire.ExitRestart)
	}
}

// storedEndedGame stores a 3×3 game of player's played to its end, as the
// game screen stores a game played by hand, and returns its id.
func storedEndedGame(t *testing.T, st store.Store, player int64) int64 {
	t.Helper()
	return storedGame(t, st, player, 3, 0)
}

// storedGame stores a game of player's of size, played to its end or for
// at most moves moves (0: to its end), and ended there.
func storedGame(t *testing.T, st store.Store, player int64, size, moves int) int64 {
	t.Helper()
	ctx := t.Context()
	g, err := st.NewGame(ctx, player, size, store.KindHuman)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; !g.Engine.Over() && (moves == 0 || g.Engine.Moves() < moves); i++ {
		if d := engine.Directions()[i%4]; g.Engine.Move(d).Moved {
			if err := st.AppendMove(ctx, g.ID, g.Engine.Moves()-1, d, store.StateOf(g.Engine)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.EndGame(ctx, g.ID, store.StateOf(g.Engine)); err != nil {
		t.Fatal(err)
	}
	return g.ID
}
