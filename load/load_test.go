package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/store"
)

// checkClean asserts what every clean run must show.
func checkClean(t *testing.T, rep *Report, sessions int) {
	t.Helper()
	if len(rep.Errors) != 0 {
		t.Fatalf("errors %v: %v", rep.Errors, rep.ErrorSamples)
	}
	if rep.Handshakes.OK != sessions || rep.Handshakes.Failed != 0 || rep.SessionsCompleted != sessions {
		t.Fatalf("handshakes %+v, completed %d; want %d of each", rep.Handshakes, rep.SessionsCompleted, sessions)
	}
	if rep.Handshakes.P50MS <= 0 || rep.Handshakes.P99MS < rep.Handshakes.P50MS || rep.Handshakes.PerSecond <= 0 {
		t.Fatalf("handshake figures not sane: %+v", rep.Handshakes)
	}
	if rep.Keys.Sent == 0 || rep.Keys.Answered == 0 || rep.Keys.Answered > rep.Keys.Sent ||
		rep.Keys.RatePerSession <= 0 || rep.Keys.PerSecond < rep.Keys.MovesPerSecond || rep.Keys.MovesPerSecond <= 0 {
		t.Fatalf("keys %+v", rep.Keys)
	}
	l := rep.Latency
	if l.Count != rep.Keys.Answered || l.P50MS <= 0 || l.P95MS < l.P50MS || l.P99MS < l.P95MS || l.MaxMS < l.P99MS {
		t.Fatalf("latency not sane: %+v (answered %d)", l, rep.Keys.Answered)
	}
	// The keys sent after the ramp-up are some of them (the sessions
	// play their first keys while the last ones connect).
	if st := rep.Steady; st == nil || st.Count <= 0 || st.Count > l.Count || st.P50MS <= 0 || st.P99MS < st.P50MS || st.MaxMS > l.MaxMS {
		t.Fatalf("latency after the ramp-up not sane: %+v (all: %+v)", st, l)
	}
	if rep.FrameBytes.Count != rep.Keys.Answered || rep.FrameBytes.P50 <= 0 || rep.FrameBytes.First <= 0 {
		t.Fatalf("frame bytes not sane: %+v", rep.FrameBytes)
	}
	if !rep.Verify.Checked || !rep.Verify.OK() || rep.Verify.Exact != sessions || rep.Verify.Players != sessions {
		t.Fatalf("verify %+v", rep.Verify)
	}
	if !rep.OK() {
		t.Fatal("report not OK")
	}
}

func TestRunBot(t *testing.T) {
	ts := startServer(t, nil)
	cfg := smallConfig(ts, ModeBot)
	cfg.Rate = 10
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, cfg.Sessions)
	// Every command gets a reply in bot mode.
	if rep.Keys.Answered != rep.Keys.Sent {
		t.Fatalf("keys %+v: every command must be answered", rep.Keys)
	}
	// The store agrees, independently of the report's own check: fresh
	// players, so their moves are exactly the replies that moved.
	players, moves := ts.storedMoves(t, store.KindBot)
	if players != cfg.Sessions || moves != rep.Keys.Moved || moves != rep.Verify.Stored || moves == 0 {
		t.Fatalf("store has %d players, %d moves; report moved %d, verify %+v", players, moves, rep.Keys.Moved, rep.Verify)
	}
	if rep.Verify.Basis != "replies" {
		t.Fatalf("basis %q", rep.Verify.Basis)
	}
}

func TestRunTUI(t *testing.T) {
	ts := startServer(t, testScreen(faultNone))
	cfg := smallConfig(ts, ModeTUI)
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkClean(t, rep, cfg.Sessions)
	if rep.Keys.NoFrame != rep.Keys.Sent-rep.Keys.Answered {
		t.Fatalf("keys %+v", rep.Keys)
	}
	// A session may happen to send only keys that move nothing; its
	// player has no game on the leaderboard.
	players, moves := ts.storedMoves(t, store.KindHuman)
	if players != rep.Verify.Listed || moves != rep.Keys.Answered {
		t.Fatalf("store has %d players, %d moves; report answered %d", players, moves, rep.Keys.Answered)
	}
}

// A screen that ignores arrows answers no key with a frame, which is
// reported, and no game has moves, which the check accepts.
func TestRunTUIStaticScreen(t *testing.T) {
	ts := startServer(t, staticScreen)
	cfg := smallConfig(ts, ModeTUI)
	cfg.Sessions, cfg.Duration, cfg.FrameTimeout = 2, time.Second, 100*time.Millisecond
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 || rep.SessionsCompleted != 2 {
		t.Fatalf("errors %v %v, completed %d", rep.Errors, rep.ErrorSamples, rep.SessionsCompleted)
	}
	if rep.Keys.Sent == 0 || rep.Keys.Answered != 0 || rep.Keys.NoFrame != rep.Keys.Sent || rep.Latency.Count != 0 {
		t.Fatalf("keys %+v latency %+v: a static screen answers no key", rep.Keys, rep.Latency)
	}
	if rep.FrameBytes.First <= 0 {
		t.Fatalf("first screen %d bytes", rep.FrameBytes.First)
	}
	if !rep.Verify.OK() || rep.Verify.Exact != 2 {
		t.Fatalf("verify %+v", rep.Verify)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "no key was answered") {
		t.Fatalf("text report does not warn that nothing was measured:\n%s", out.String())
	}
}

// A key that moved nothing (no frame) is not sent again next: it would
// move nothing again, and cost the session another --frame-timeout.
func TestRunTUIDoesNotRepeatAStillKey(t *testing.T) {
	var rec keyRecorder
	ts := startServer(t, rec.screen)
	cfg := smallConfig(ts, ModeTUI)
	cfg.Sessions, cfg.Duration, cfg.Rate, cfg.FrameTimeout = 2, time.Second, 40, 50*time.Millisecond
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 || rep.Keys.Answered != 0 {
		t.Fatalf("errors %v, keys %+v", rep.Errors, rep.Keys)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	arrows := 0
	for i, keys := range rec.keys {
		for j := 1; j < len(keys); j++ {
			if keys[j] == keys[j-1] && keys[j] != "?" {
				t.Fatalf("session %d sent %s twice in a row, though the first moved nothing: %v", i, keys[j], keys)
			}
		}
		arrows += len(keys)
	}
	if arrows < 20 {
		t.Fatalf("the screens got %d keys in all, too few to tell: %v", arrows, rec.keys)
	}
}

// Idle sessions (--rate 0) hold their connection, send nothing and end
// cleanly, in both modes.
func TestRunIdle(t *testing.T) {
	for _, mode := range []Mode{ModeTUI, ModeBot} {
		t.Run(string(mode), func(t *testing.T) {
			ts := startServer(t, testScreen(faultNone))
			cfg := smallConfig(ts, mode)
			cfg.Rate, cfg.Duration = 0, time.Second
			start := time.Now()
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took < cfg.Duration {
				t.Fatalf("idle run took %v, less than its duration", took)
			}
			if !rep.OK() || rep.SessionsCompleted != cfg.Sessions || rep.Keys.Sent != 0 || rep.FrameBytes.First <= 0 {
				t.Fatalf("report %+v", rep)
			}
			var out bytes.Buffer
			if err := rep.WriteText(&out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "none: idle sessions") || strings.Contains(out.String(), "p50 0.00") {
				t.Fatalf("text report of an idle run:\n%s", out.String())
			}
		})
	}
}

// With --verify-wait the check waits for a server that is being
// restarted; moves answered before the restart are all in the store.
func TestVerifyWaitsForRestart(t *testing.T) {
	ts := startServer(t, nil)
	cfg := smallConfig(ts, ModeBot)
	cfg.Rate, cfg.Duration, cfg.VerifyWait = 20, 3*time.Second, 10*time.Second
	type result struct {
		rep *Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Run(context.Background(), cfg)
		done <- result{rep, err}
	}()
	time.Sleep(time.Second)
	ts.stop() // the sessions are told and end
	time.Sleep(time.Second)
	startServerAt(t, ts.dir, ts.addr, nil)
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	rep := res.rep
	v := rep.Verify
	if !v.Checked || v.Error != "" || v.Players != cfg.Sessions || v.Lost != 0 || v.NotListed != 0 || v.Expected == 0 {
		t.Fatalf("verify %+v", v)
	}
	if rep.SessionsCompleted == cfg.Sessions {
		t.Fatalf("no session noticed the restart: %+v", rep)
	}
}

// The check is not a formality: moves drawn but not stored, and moves
// stored but not drawn, both fail the run.
func TestVerifyCatchesMismatches(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault screenFault
		want  func(VerifyReport) bool
	}{
		{"drawn not stored", faultForgetLeft, func(v VerifyReport) bool { return v.Lost > 0 }},
		{"stored not drawn", faultHideDown, func(v VerifyReport) bool { return v.Extra > 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, testScreen(tc.fault))
			cfg := smallConfig(ts, ModeTUI)
			cfg.Duration, cfg.Rate = 2*time.Second, 10
			cfg.FrameTimeout = 150 * time.Millisecond
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Errors) != 0 {
				t.Fatalf("errors %v: %v", rep.Errors, rep.ErrorSamples)
			}
			if !tc.want(rep.Verify) || rep.Verify.OK() || rep.OK() || len(rep.Verify.Mismatches) == 0 {
				t.Fatalf("verify %+v: the fault went unnoticed", rep.Verify)
			}
			var out bytes.Buffer
			if err := rep.WriteText(&out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "FAILED") || !strings.Contains(out.String(), rep.Verify.Mismatches[0].Name) {
				t.Fatalf("text report does not show the failure:\n%s", out.String())
			}
		})
	}
}

// A move whose frame comes after --frame-timeout is still a move: the
// check counts what the screen showed, not what the client timed. Counting
// keys answered by a frame leaves it out: the key is counted as "no
// frame" at the timeout, and its frame is taken for the next key's answer,
// that key's own frame going with it.
func TestVerifyLateFrame(t *testing.T) {
	ts := startServer(t, testScreen(faultSlowFirst))
	cfg := smallConfig(ts, ModeTUI)
	// A key a second, exactly: the first move's frame comes after the
	// next key went, and is taken for its answer; that key's own frame
	// follows it, as the rest of one frame.
	cfg.Sessions, cfg.Duration, cfg.Rate, cfg.Jitter = 2, 4*time.Second, 1, 0
	cfg.FrameTimeout = 300 * time.Millisecond
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) != 0 {
		t.Fatalf("errors %v: %v", rep.Errors, rep.ErrorSamples)
	}
	_, moves := ts.storedMoves(t, store.KindHuman)
	if rep.Keys.Answered != moves-cfg.Sessions {
		t.Fatalf("answered %d keys, %d moves stored: want one key a session not answered in time", rep.Keys.Answered, moves)
	}
	v := rep.Verify
	if !v.OK() || v.Stored != moves || v.Expected != moves || v.Basis != "screen" || v.ScreenRead != 2 || v.FramedOff != 2 {
		t.Fatalf("verify %+v; want all %d stored moves matched by the screens' counts", v, moves)
	}
}

func TestRunNobodyListening(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg := DefaultConfig()
	cfg.Addr, cfg.Sessions, cfg.Duration = addr, 3, time.Second
	cfg.ConnectTimeout = 2 * time.Second
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors[errDial] != 3 || rep.Handshakes.OK != 0 || rep.SessionsCompleted != 0 || rep.OK() {
		t.Fatalf("report %+v", rep)
	}
	if rep.Verify.Error == "" {
		t.Fatalf("verify %+v: the check cannot have run", rep.Verify)
	}
}

// A cancelled run ends promptly and says so.
func TestRunCancelled(t *testing.T) {
	ts := startServer(t, testScreen(faultNone))
	cfg := smallConfig(ts, ModeTUI)
	cfg.Duration = time.Hour
	cfg.Verify = false
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("cancelled run took %v", took)
	}
	if rep.Errors[errCancelled] != cfg.Sessions || rep.OK() {
		t.Fatalf("errors %v, want %d cancelled", rep.Errors, cfg.Sessions)
	}
}

func TestReportJSON(t *testing.T) {
	ts := startServer(t, nil)
	cfg := DefaultConfig()
	cfg.Addr, cfg.Mode, cfg.Sessions, cfg.Duration, cfg.Rate, cfg.NamePrefix = ts.addr, ModeBot, 2, time.Second, 5, "j-"
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	for _, field := range []string{"handshakes", "keys", "latency", "frame_bytes", "errors", "sessions_completed", "verify"} {
		if _, ok := got[field]; !ok {
			t.Errorf("JSON report lacks %q", field)
		}
	}
	if got["name_prefix"] != "j-" || got["sessions_completed"] != 2.0 {
		t.Fatalf("report %v", got)
	}
	v := got["verify"].(map[string]any)
	if v["exact"] != 2.0 || v["command"] != "scores --bots --json --limit 1000" {
		t.Fatalf("verify %v", v)
	}
}

func TestReportText(t *testing.T) {
	ts := startServer(t, testScreen(faultNone))
	cfg := DefaultConfig()
	cfg.Addr, cfg.Sessions, cfg.Duration = ts.addr, 2, time.Second
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", out.String())
	if !rep.OK() {
		t.Error("report not OK")
	}
	for _, want := range []string{"handshakes", "key→frame", "frame bytes", "errors       none", "2 of 2 completed", "2 of 2 players match", "result       OK"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	ok.Addr = "127.0.0.1:23234"
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	nan := 0.0
	nan /= nan
	for name, mutate := range map[string]func(*Config){
		"no addr":          func(c *Config) { c.Addr = "" },
		"too many":         func(c *Config) { c.Sessions = MaxSessions + 1 },
		"no duration":      func(c *Config) { c.Duration = 0 },
		"too long":         func(c *Config) { c.Duration = MaxDuration + 1 },
		"negative rate":    func(c *Config) { c.Rate = -1 },
		"verify wait":      func(c *Config) { c.VerifyWait = -1 },
		"NaN rate":         func(c *Config) { c.Rate = nan },
		"mode":             func(c *Config) { c.Mode = "x" },
		"handshakes":       func(c *Config) { c.Handshakes = 0 },
		"connect timeout":  func(c *Config) { c.ConnectTimeout = 0 },
		"frame timeout":    func(c *Config) { c.FrameTimeout = MaxFrameTimeout + 1 },
		"jitter":           func(c *Config) { c.Jitter = 1 },
		"long name prefix": func(c *Config) { c.NamePrefix = "abcdefghijk" },
		"size":             func(c *Config) { c.Size = 9 },
		"spectators":       func(c *Config) { c.Spectators = -1 },
		"bot spectators":   func(c *Config) { c.Mode, c.Spectators = ModeBot, 3 },
		"server pid":       func(c *Config) { c.ServerPID = -1 },
		"no such server":   func(c *Config) { c.ServerPID = 1 << 30 }, // above Linux's pid_max
	} {
		c := ok
		mutate(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: got %v, want ErrConfig", name, err)
			continue // Run would connect
		}
		if _, err := Run(context.Background(), c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: Run got %v, want ErrConfig", name, err)
		}
	}
}

func TestPercentile(t *testing.T) {
	vals := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		p    float64
		want int
	}{{50, 5}, {90, 9}, {95, 10}, {99, 10}, {100, 10}, {1, 1}, {0, 1}} {
		if got := percentile(vals, tc.p); got != tc.want {
			t.Errorf("p%v = %d, want %d", tc.p, got, tc.want)
		}
	}
	if got := percentile([]int(nil), 50); got != 0 {
		t.Errorf("empty: %d", got)
	}
}
