package load

import (
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/db"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/tui"
)

// realScreen is the real game screen (package tui) over the server's games,
// for as long as the server does not plug it in by default; then this test
// can start the server with a nil TUI instead.
func realScreen(sess ssh.Session, env server.TUIEnv) tea.Model {
	return tui.New(tui.Options{Store: playStore{env.Games}, Player: env.Player.Name, Context: sess.Context()})
}

// playStore opens the player's games for the TUI; the leaderboard is left
// empty, which changes nothing the load tool measures.
type playStore struct{ games *server.Games }

func (p playStore) Open(ctx context.Context, size int, fresh bool) (tui.Game, error) {
	return p.games.Open(ctx, size, db.KindHuman, fresh)
}

func (playStore) Standings(context.Context, int, int) ([]tui.Standing, *tui.Standing, error) {
	return nil, nil, nil
}

// The tui mode's inference holds on the real game screen: a key that moves
// the board is answered by a frame, one that does not draws nothing, so
// the keys answered by a frame are exactly the moves stored.
func TestRunRealTUI(t *testing.T) {
	ts := startServer(t, realScreen)
	cfg := smallConfig(ts, ModeTUI)
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, cfg.Sessions)
	// A session may happen to send only keys that move nothing; its
	// player has no game on the leaderboard.
	players, moves := ts.storedMoves(t, db.KindHuman)
	if players != rep.Verify.Listed || moves != rep.Keys.Answered {
		t.Fatalf("store has %d players, %d moves; report answered %d", players, moves, rep.Keys.Answered)
	}
}
