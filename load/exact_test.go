package load

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store"
	"github.com/ssh2048/ssh2048/store/sqlite"
)

// slowStore is the real SQLite store whose commits of a game's moves after
// the first take delay each, as commits queued behind a busy writer do.
type slowStore struct {
	*sqlite.Store
	delay time.Duration
}

func (s *slowStore) AppendMove(ctx context.Context, gameID int64, seq int, d engine.Direction, st store.MoveState) error {
	if seq > 0 {
		time.Sleep(s.delay)
	}
	return s.Store.AppendMove(ctx, gameID, seq, d, st)
}

// startSlowServer is a server over a slowStore, with tui as its game
// screen (nil: the server's own).
func startSlowServer(t *testing.T, delay time.Duration, tui server.TUIFunc) *testServer {
	t.Helper()
	var sq *sqlite.Store
	dir := t.TempDir()
	s := servertest.StartOver(t, dir, "127.0.0.1:0", func(log *slog.Logger) (servertest.Backing, error) {
		var err error
		sq, err = sqlite.Open(context.Background(), dir, sqlite.WithLogger(log))
		if err != nil {
			return nil, err
		}
		return &slowStore{Store: sq, delay: delay}, nil
	}, func(c *server.Config) { c.TUI = tui })
	return &testServer{addr: s.Addr, dir: s.Dir, store: sq, stop: s.Stop}
}

// finalMoves stops the server, so that it finishes every commit it
// started, and returns the moves then stored, by player name.
func (ts *testServer) finalMoves(t *testing.T) map[string]int {
	t.Helper()
	ts.stop()
	sq, err := sqlite.Open(context.Background(), ts.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sq.Close()
	ts.store = sq
	rows, err := sq.Leaderboard(context.Background(), 4, store.KindHuman, 1000)
	if err != nil {
		t.Fatal(err)
	}
	moves := make(map[string]int, len(rows))
	for _, r := range rows {
		moves[r.Name] = r.Moves
	}
	return moves
}

// A server whose commits are slower than --frame-timeout falls behind the
// keys: when the run ends, keys sent are still waiting in the server and a
// move is still committing. The check must count what the server did,
// neither less nor more: every move the server stores, once it has
// applied every key, is one the player was shown, or the check says how
// many were not (lost) or were stored unseen (extra). A screen that does
// not answer the help key leaves the tool no exact count: a difference
// from the keys it saw answered is then inexact, neither lost nor extra.
func TestVerifyKeysInFlightAtEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		tui  server.TUIFunc
		// off is stored minus shown for each player: -1 lost, +1 extra.
		off   int
		exact bool // every player has an exact count
	}{
		{"server's game screen", nil, 0, true},
		{"one move stored, not drawn", testScreen(faultHideOne), +1, true},
		{"one move drawn, not stored", testScreen(faultDrawOne), -1, true},
		{"no help key", testScreen(faultNoHelp), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startSlowServer(t, 400*time.Millisecond, tc.tui)
			cfg := smallConfig(ts, ModeTUI)
			cfg.Sessions, cfg.Duration, cfg.Rate = 3, 2*time.Second, 5
			cfg.FrameTimeout = 150 * time.Millisecond
			if !tc.exact {
				cfg.ConnectTimeout = 3 * time.Second // how long the help screen is waited for
			}
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Errors) != 0 {
				t.Fatalf("errors %v: %v", rep.Errors, rep.ErrorSamples)
			}
			stored := ts.finalMoves(t)
			v := rep.Verify
			t.Logf("keys %+v; verify %+v; stored %v", rep.Keys, v, stored)
			total := 0
			for _, n := range stored {
				total += n
			}
			if tc.exact && v.Stored != total {
				t.Errorf("the check read %d stored moves before the server was done; %d once it was", v.Stored, total)
			}
			switch {
			case !tc.exact:
				if v.ScreenRead != 0 || v.Lost != 0 || v.Extra != 0 || v.Inexact == 0 || v.Exact+v.Inexact != cfg.Sessions || v.OK() {
					t.Fatalf("verify %+v; want no exact count, no player called lost or extra, and the run not OK", v)
				}
				var text, js bytes.Buffer
				if err := rep.WriteText(&text); err != nil {
					t.Fatal(err)
				}
				if err := rep.WriteJSON(&js); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(text.String(), fmt.Sprintf("%d players not counted exactly", v.Inexact)) ||
					!strings.Contains(text.String(), "FAILED") || !strings.Contains(js.String(), fmt.Sprintf(`"inexact": %d`, v.Inexact)) {
					t.Fatalf("the reports do not say so:\n%s\n%s", text.String(), js.String())
				}
			case tc.off == 0:
				if !v.OK() || v.Exact != cfg.Sessions || v.Basis != "screen" || v.Expected != total {
					t.Fatalf("verify %+v; want every player matched by the screen's count", v)
				}
			default:
				if v.Basis != "screen" || v.OK() || len(v.Mismatches) != cfg.Sessions ||
					tc.off > 0 && v.Extra != cfg.Sessions || tc.off < 0 && v.Lost != cfg.Sessions {
					t.Fatalf("verify %+v; want every player %+d", v, tc.off)
				}
				for _, m := range v.Mismatches {
					if m.Stored != stored[m.Name] || m.Stored-m.Expected != tc.off {
						t.Errorf("%s: shown %d, the check read %d stored, %d stored at the end; want %+d", m.Name, m.Expected, m.Stored, stored[m.Name], tc.off)
					}
				}
			}
		})
	}
}
