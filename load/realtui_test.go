package load

import (
	"context"
	"testing"

	"github.com/ssh2048/ssh2048/store"
)

// The tui mode's inference holds on the server's own game screen: a key
// that moves the board is answered by a frame, one that does not draws
// nothing, so the keys answered by a frame are exactly the moves stored.
func TestRunRealTUI(t *testing.T) {
	ts := startServer(t, nil) // nil: the server's game screen
	cfg := smallConfig(ts, ModeTUI)
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, cfg.Sessions)
	// A session may happen to send only keys that move nothing; its
	// player has no game on the leaderboard.
	players, moves := ts.storedMoves(t, store.KindHuman)
	if players != rep.Verify.Listed || moves != rep.Keys.Answered {
		t.Fatalf("store has %d players, %d moves; report answered %d", players, moves, rep.Keys.Answered)
	}
}
