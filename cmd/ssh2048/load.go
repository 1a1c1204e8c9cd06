package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/ssh2048/ssh2048/load"
)

// runLoad is `ssh2048 load`: package load does the work; a signal ends the
// run early and still prints the report. Exit status: 0 when every session
// ran without error and every move was counted, 1 otherwise, 2 for bad
// flags.
func runLoad(args []string, stdout, stderr io.Writer) int {
	cfg := load.DefaultConfig()
	fs := newFlagSet("load", "usage: ssh2048 load --addr HOST:PORT [--sessions N] [--duration D] [--rate R]\n"+
		"                    [--mode tui|bot|race] [--spectators S] [--server-pid PID]\n"+
		"                    [--json]\n\n"+
		"Opens N concurrent sessions, each with a fresh ed25519 key, plays for D at R\n"+
		"keys/s per session, reports handshakes and key-to-answer latencies, and checks\n"+
		"through `scores --json` that the server counted every move. With --spectators,\n"+
		"plays D alone, then D more with S spectators watching session 1, and compares.\n"+
		"Exit status: 0 clean, 1 errors or moves not counted, 2 usage. Flags:", stdout, stderr)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "host:port of the ssh2048 server (required)")
	fs.IntVar(&cfg.Sessions, "sessions", cfg.Sessions, fmt.Sprintf("concurrent sessions, 1 to %d", load.MaxSessions))
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long the sessions play once all have connected")
	fs.Float64Var(&cfg.Rate, "rate", cfg.Rate, "keys (tui) or commands (bot) per second per session; 0: idle sessions")
	fs.Func("mode", "`tui|bot|race`: a PTY and arrow keys, the bot command and its JSON lines, or races of 4 in private rooms (default tui)", func(s string) error {
		if m := load.Mode(s); m == load.ModeTUI || m == load.ModeBot || m == load.ModeRace {
			cfg.Mode = m
			return nil
		}
		return fmt.Errorf("want tui, bot or race")
	})
	fs.IntVar(&cfg.Handshakes, "handshakes", cfg.Handshakes, "SSH handshakes in flight at once while connecting")
	fs.DurationVar(&cfg.ConnectTimeout, "connect-timeout", cfg.ConnectTimeout, "bound on one connect+handshake and on the first frame")
	fs.DurationVar(&cfg.FrameTimeout, "frame-timeout", cfg.FrameTimeout, "how long a key waits for its frame (tui) or reply (bot)")
	fs.Float64Var(&cfg.Jitter, "jitter", cfg.Jitter, "pause between keys varies over (1±jitter)/rate")
	fs.StringVar(&cfg.NamePrefix, "name-prefix", cfg.NamePrefix, `user name prefix, the session number follows (default "load-" and a random run tag)`)
	fs.BoolFunc("no-verify", "skip the final check through the scores command", func(string) error {
		cfg.Verify = false
		return nil
	})
	fs.DurationVar(&cfg.VerifyWait, "verify-wait", cfg.VerifyWait, "keep trying to connect for the check this long (a server being restarted); 0: one try")
	fs.IntVar(&cfg.Size, "size", cfg.Size, "board size played, 3 to 8; 0: the server's (4×4 for a new player)")
	fs.IntVar(&cfg.Spectators, "spectators", cfg.Spectators, "tui: spectators watching session 1 in a second half of the run, after a first one unwatched")
	fs.IntVar(&cfg.ServerPID, "server-pid", cfg.ServerPID, "the server's process id, on this machine (Linux): the report adds its CPU time per key answered, its CPU time over the run, and its RSS")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "ssh2048 load: %v\n", err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := load.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 load: %v\n", err)
		return 1
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ssh2048 load: write report: %v\n", err)
		return 1
	}
	if !rep.OK() {
		return 1
	}
	return 0
}
