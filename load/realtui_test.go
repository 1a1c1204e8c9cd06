package load

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ssh2048/ssh2048/server"
	"github.com/ssh2048/ssh2048/server/servertest"
	"github.com/ssh2048/ssh2048/store"
)

// The tui mode's inference holds on the server's own game screen: a key
// that moves the board is answered by a frame, one that does not draws
// nothing, so the keys answered by a frame are exactly the moves stored.
func TestRunRealTUI(t *testing.T) {
	ts := startServer(t, nil) // nil: the server's game screen
	cfg := smallConfig(ts, ModeTUI)
	cfg.ServerPID = os.Getpid() // the server runs in the test's process
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, cfg.Sessions)
	// The server's CPU time over the run, per key, and its peak memory.
	if s := rep.Server; s == nil || s.Error != "" || s.PID != cfg.ServerPID || s.CPUSeconds <= 0 ||
		s.RampCPUSeconds > s.CPUSeconds || s.CPUPerKeyUS <= 0 || rep.RSS == nil || s.PeakRSSKB < rep.RSS.PlayersKB {
		t.Errorf("server report %+v, rss %+v", s, rep.RSS)
	}
	// The CPU while every session played, apart from the logins' and the
	// goodbyes', and that per key answered of those sent then.
	if s := rep.Server; s != nil && (s.PlayCPUSeconds <= 0 || s.RampCPUSeconds+s.PlayCPUSeconds > s.CPUSeconds ||
		rep.Steady == nil || s.CPUPerPlayKeyUS != float64(int64(s.PlayCPUSeconds*1e6+0.5))/float64(rep.Steady.Count)) {
		t.Errorf("server report %+v: no CPU in play, or not per key sent in play (%+v)", s, rep.Steady)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", text.String())
	if !strings.Contains(text.String(), "µs CPU per key answered") || !strings.Contains(text.String(), "while all played") ||
		!strings.Contains(text.String(), "peak RSS") {
		t.Errorf("no server line in the report:\n%s", text.String())
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"cpu_s"`, `"ramp_cpu_s"`, `"cpu_us_per_key"`, `"play_cpu_s"`, `"cpu_us_per_play_key"`, `"peak_rss_kb"`} {
		if !strings.Contains(js.String(), field) {
			t.Errorf("no %s in the JSON report:\n%s", field, js.String())
		}
	}
	// A session may happen to send only keys that move nothing; its
	// player has no game on the leaderboard.
	players, moves := ts.storedMoves(t, store.KindHuman)
	if players != rep.Verify.Listed || moves != rep.Keys.Answered {
		t.Fatalf("store has %d players, %d moves; report answered %d", players, moves, rep.Keys.Answered)
	}
	// The check read each game screen's own move count.
	if v := rep.Verify; v.Basis != "screen" || v.ScreenRead != cfg.Sessions || v.Stored != moves {
		t.Errorf("verify %+v; want every screen's move count read", v)
	}
}

// With motion on the server's game screen, a move comes in a few frames;
// at a rate whose keys would otherwise go out between them, every key is
// still answered by its own move's frames: the keys answered are the
// moves stored, and every screen's move count is read.
func TestRunRealTUIWithMotion(t *testing.T) {
	s := servertest.Start(t, t.TempDir(), "127.0.0.1:0", func(c *server.Config) { c.Motion, c.MotionScreens = true, 100 })
	ts := &testServer{addr: s.Addr, dir: s.Dir, store: s.Store, stop: s.Stop}
	cfg := smallConfig(ts, ModeTUI)
	cfg.Rate = 20
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, cfg.Sessions)
	players, moves := ts.storedMoves(t, store.KindHuman)
	if players != rep.Verify.Listed || moves != rep.Keys.Answered {
		t.Fatalf("store has %d players, %d moves; report answered %d", players, moves, rep.Keys.Answered)
	}
	if v := rep.Verify; v.Basis != "screen" || v.ScreenRead != cfg.Sessions || v.Stored != moves {
		t.Errorf("verify %+v; want every screen's move count read", v)
	}
	t.Logf("keys %+v, frame bytes %+v", rep.Keys, rep.FrameBytes)
}
