package main

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ssh2048/ssh2048/load"
)

// TestKill9UnderLoad is issue 7's crash test at a small scale: bot players
// play against the real binary, the server is killed with SIGKILL in the
// middle of it and started again on the same data, and every move a
// player was answered must be in its stored game (a reply is written only
// after its move is committed). The bot protocol makes the check exact:
// each reply carries the game's move count.
func TestKill9UnderLoad(t *testing.T) {
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	// Limits that would refuse a fast ramp from one address are off: every
	// player of the test comes from 127.0.0.1.
	noLimits := []string{"SSH2048_CONN_RATE_PER_IP=0", "SSH2048_MAX_UNAUTH_PER_IP=0"}
	first := startProcess(t, bin, data, noLimits...)

	cfg := load.DefaultConfig()
	cfg.Addr = first.addr
	cfg.Mode = load.ModeBot
	cfg.Sessions = 20
	cfg.Rate = 20
	cfg.Duration = 4 * time.Second
	cfg.Verify = true
	cfg.VerifyWait = 30 * time.Second
	type result struct {
		r   *load.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := load.Run(context.Background(), cfg)
		done <- result{r, err}
	}()

	time.Sleep(2 * time.Second) // players connected and moving
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.exited
	startProcessAt(t, bin, data, first.addr, noLimits...)

	res := <-done
	if res.err != nil {
		t.Fatalf("load: %v", res.err)
	}
	v := res.r.Verify
	if !v.Checked || v.Error != "" {
		t.Fatalf("check did not run: %+v", v)
	}
	if v.Players != cfg.Sessions || v.Expected < 100 {
		t.Fatalf("%d players saw %d moves before the kill; want %d players and a real load", v.Players, v.Expected, cfg.Sessions)
	}
	if v.Lost != 0 || v.NotListed != 0 {
		t.Fatalf("after kill -9: %d players lost moves, %d not listed: %+v", v.Lost, v.NotListed, v.Mismatches)
	}
	t.Logf("kill -9 under %d bot players: %d answered moves, %d stored, %d players with a move committed but unanswered",
		cfg.Sessions, v.Expected, v.Stored, v.Extra)
}
