package load

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/server"
)

// TestRunSpectators: a spectator run against the server's real screens:
// the player plays alone, then watched by spectators that each get a
// frame for every framed key of the watched half; the server's memory
// is read (the test's own process is the server); every move is counted.
func TestRunSpectators(t *testing.T) {
	ts := startServer(t, nil)
	cfg := smallConfig(ts, ModeTUI)
	cfg.Sessions, cfg.Rate, cfg.Size, cfg.Spectators = 2, 8, 8, 4
	cfg.ServerPID = os.Getpid()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, cfg.Sessions)
	w := rep.Watch
	if w == nil || w.Connected != 4 || w.Completed != 4 || !strings.HasSuffix(w.Watched, "0001") {
		t.Fatalf("watch report %+v", w)
	}
	if w.PlayerAlone.Count == 0 || w.PlayerWatched.Count == 0 || w.PlayerAlone.Count+w.PlayerWatched.Count > rep.Keys.Answered {
		t.Fatalf("the player's keys alone %d, watched %d, answered %d in all", w.PlayerAlone.Count, w.PlayerWatched.Count, rep.Keys.Answered)
	}
	if w.AllAlone.Count < w.PlayerAlone.Count || w.AllWatched.Count < w.PlayerWatched.Count {
		t.Fatalf("all players %d/%d, fewer than the watched one's %d/%d", w.AllAlone.Count, w.AllWatched.Count, w.PlayerAlone.Count, w.PlayerWatched.Count)
	}
	// Every spectator has a frame for each framed key of the watched
	// half, or it is counted missed.
	if got := w.SpectatorFrame.Count + w.Missed; got != 4*w.PlayerWatched.Count {
		t.Fatalf("spectator frames %d + missed %d, want 4 × %d", w.SpectatorFrame.Count, w.Missed, w.PlayerWatched.Count)
	}
	if w.SpectatorFrame.Count == 0 || w.BehindPlayer.Count != w.SpectatorFrame.Count || w.SpectatorBytes <= 0 {
		t.Fatalf("spectator figures %+v %+v, %v bytes", w.SpectatorFrame, w.BehindPlayer, w.SpectatorBytes)
	}
	if r := rep.RSS; r == nil || r.Error != "" || r.BeforeKB <= 0 || r.PlayersKB <= 0 || r.SpectatorsKB <= 0 {
		t.Fatalf("rss %+v", r)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"spectators   4 watching", "player       alone", "behind the player's frame", "kB a spectator", "result       OK"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("%q is not in the report:\n%s", want, text.String())
		}
	}
}

// The halves are of play: a player's first screen may come well after
// its handshake (a busy server, a slow store at login), and the half
// alone starts once every player has it. A game screen that takes longer
// than a half to open shows it: the player alone has keys answered too.
func TestSpectatorHalvesAfterFirstScreens(t *testing.T) {
	const slowScreen = 1500 * time.Millisecond
	screen := testScreen(faultNone)
	ts := startServer(t, func(sess ssh.Session, env server.TUIEnv) tea.Model {
		time.Sleep(slowScreen)
		return screen(sess, env)
	})
	cfg := smallConfig(ts, ModeTUI)
	cfg.Sessions, cfg.Spectators, cfg.Rate = 1, 1, 8
	cfg.Duration, cfg.FrameTimeout = time.Second, 250*time.Millisecond
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, cfg.Sessions)
	w := rep.Watch
	if w == nil || w.Completed != 1 {
		t.Fatalf("watch report %+v", w)
	}
	if w.PlayerAlone.Count == 0 || w.PlayerWatched.Count == 0 {
		t.Fatalf("the player's keys alone %d, watched %d, answered %d in all", w.PlayerAlone.Count, w.PlayerWatched.Count, rep.Keys.Answered)
	}
}
