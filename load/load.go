// Package load is the load generator behind `ssh2048 load`: it opens many
// concurrent SSH sessions against a running ssh2048 server, each with a
// fresh ed25519 key, plays at a fixed rate through the game screen (a PTY)
// or the bot protocol, measures handshakes and the time from each key to
// the server's answer, and finally checks through `scores --json` that the
// server counted every move the sessions saw.
//
// It only ever connects to the address the operator gives it.
package load

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// Mode is what each session plays through.
type Mode string

const (
	// ModeTUI requests a PTY and sends arrow keys to the game screen.
	ModeTUI Mode = "tui"
	// ModeBot runs the `bot` exec command and sends protocol lines.
	ModeBot Mode = "bot"
)

// Bounds on the configuration: every loop in a run is bounded by these in
// count and time.
const (
	MaxSessions       = 10000
	MaxDuration       = 24 * time.Hour
	MaxRate           = 50.0 // the server drops keys beyond about 50/s per session
	MaxHandshakes     = 512
	MaxConnectTimeout = time.Minute
	MaxFrameTimeout   = time.Minute
)

// Config is one load run. DefaultConfig fills in everything but Addr.
type Config struct {
	Addr     string        // host:port of the server; required
	Sessions int           // concurrent sessions, 1 to MaxSessions
	Duration time.Duration // how long all sessions play once the last has connected
	// Rate is keys (tui) or commands (bot) per second per session; 0
	// holds the sessions open without a key (idle players).
	Rate float64
	Mode Mode
	// Size is the board size played, 3 to 8; 0 leaves it to the server
	// (4×4 for a new player). Random keys end a 4×4 game in a hundred
	// moves or so; an 8×8 one lasts thousands.
	Size int

	// Handshakes bounds how many SSH handshakes are in flight at once
	// during the ramp-up.
	Handshakes int
	// ConnectTimeout bounds one TCP connect plus SSH handshake, and the
	// wait for a session's first frame or state line.
	ConnectTimeout time.Duration
	// FrameTimeout is how long a key waits for its answer. In tui mode a
	// key that changes nothing on the board gets no frame at all, so a key
	// without a frame by then is counted as such, not as an error; in bot
	// mode every command gets a reply and a missing one is an error.
	FrameTimeout time.Duration
	// Jitter spreads the pause between keys uniformly over
	// (1±Jitter)/Rate, so that sessions do not march in step.
	Jitter float64
	// NamePrefix starts every session's SSH user name; the session number
	// follows. Empty: "load-" and a random tag for this run, so that the
	// check through `scores` finds this run's players only.
	NamePrefix string
	// Verify runs the final check through `scores --json`.
	Verify bool
	// VerifyWait is how long the check keeps trying to connect, for runs
	// in which the server is killed and restarted; 0: one try.
	VerifyWait time.Duration

	// Spectators, in tui mode, watch session 1 (`watch NAME`): the run
	// then plays Duration unwatched, lets them in, and plays Duration
	// watched, and reports both (see watch.go).
	Spectators int
	// ServerPID, if set (Linux), is the server's process, on this
	// machine: its CPU time over the run and its peak RSS are read from
	// /proc (Report.Server), and its RSS at each step of the run
	// (Report.RSS), and CPU time in each half of a spectator run.
	ServerPID int
}

// DefaultConfig returns the defaults the flags show.
func DefaultConfig() Config {
	return Config{
		Sessions:       10,
		Duration:       10 * time.Second,
		Rate:           2,
		Mode:           ModeTUI,
		Handshakes:     8,
		ConnectTimeout: 10 * time.Second,
		FrameTimeout:   time.Second,
		Jitter:         0.25,
		Verify:         true,
	}
}

// ErrConfig marks a configuration Run refuses.
var ErrConfig = errors.New("invalid load configuration")

// validAddr reports whether addr has the form of a server's address,
// HOST:PORT; whether HOST resolves is found when the sessions connect.
func validAddr(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	p, err := net.LookupPort("tcp", port)
	return err == nil && p > 0
}

// Validate reports the first setting out of bounds.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Addr == "":
		return bad("--addr is required (host:port of the server)")
	case !validAddr(c.Addr):
		return bad("--addr %q: want HOST:PORT, the port 1 to 65535", c.Addr)
	case c.Sessions < 1 || c.Sessions > MaxSessions:
		return bad("--sessions %d: must be 1 to %d", c.Sessions, MaxSessions)
	case c.Duration <= 0 || c.Duration > MaxDuration:
		return bad("--duration %v: must be more than 0 and at most %v", c.Duration, MaxDuration)
	case !(c.Rate >= 0 && c.Rate <= MaxRate): // also refuses NaN
		return bad("--rate %v: must be 0 (idle) to %v", c.Rate, MaxRate)
	case c.Mode != ModeTUI && c.Mode != ModeBot && c.Mode != ModeRace:
		return bad("--mode %q: want tui, bot or race", c.Mode)
	case c.Mode == ModeRace && c.Sessions < 2:
		return bad("--sessions %d: a race needs 2", c.Sessions)
	case c.Handshakes < 1 || c.Handshakes > MaxHandshakes:
		return bad("--handshakes %d: must be 1 to %d", c.Handshakes, MaxHandshakes)
	case c.ConnectTimeout <= 0 || c.ConnectTimeout > MaxConnectTimeout:
		return bad("--connect-timeout %v: must be more than 0 and at most %v", c.ConnectTimeout, MaxConnectTimeout)
	case c.FrameTimeout <= 0 || c.FrameTimeout > MaxFrameTimeout:
		return bad("--frame-timeout %v: must be more than 0 and at most %v", c.FrameTimeout, MaxFrameTimeout)
	case !(c.Jitter >= 0 && c.Jitter < 1):
		return bad("--jitter %v: must be at least 0 and less than 1", c.Jitter)
	case c.VerifyWait < 0 || c.VerifyWait > MaxConnectTimeout*10:
		return bad("--verify-wait %v: must be 0 to %v", c.VerifyWait, MaxConnectTimeout*10)
	case c.Size != 0 && (c.Size < 3 || c.Size > 8): // the server's sizes; package load knows no engine
		return bad("--size %d: must be 3 to 8", c.Size)
	case c.Spectators < 0 || c.Spectators > MaxSessions:
		return bad("--spectators %d: must be 0 to %d", c.Spectators, MaxSessions)
	case c.Spectators > 0 && c.Mode != ModeTUI:
		return bad("--spectators: spectators watch a game screen; use --mode tui")
	case c.ServerPID < 0:
		return bad("--server-pid %d: a process id", c.ServerPID)
	case len(c.NamePrefix) > 10:
		return bad("--name-prefix %q: at most 10 bytes (display names are cut at 16 cells)", c.NamePrefix)
	}
	if c.ServerPID > 0 {
		// Read now, so that a mistyped pid is a usage error before any
		// session connects rather than a line in the report after the run.
		if err := checkPID(c.ServerPID); err != nil {
			return bad("--server-pid %d: %v", c.ServerPID, err)
		}
	}
	return nil
}
