package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"

	"charm.land/ssh"
	"github.com/ssh2048/ssh2048/engine"
	"github.com/ssh2048/ssh2048/engine/ai"
	"github.com/ssh2048/ssh2048/server/session"
	"github.com/ssh2048/ssh2048/tui"
	"github.com/ssh2048/ssh2048/wire"
)

// A panic is a bug, and a bug must cost one session, never the server and
// everyone on it. Go has no process-wide recover: a panic on any goroutine
// that does not recover it ends the process. So every goroutine that runs
// a session's code recovers for itself:
//   - the session handler (middleware, routing, exec commands, the bot
//     loop): recoverSession;
//   - the game screen's goroutines (Update, View, commands, timers, the
//     input reader): package screen, which ends the screen with a
//     *screen.PanicError that runTUI reports here;
//   - the bot protocol's line reader: package command's readLines;
//   - AI searches: the pool's workers, which answer with an *ai.PanicError
//     that sessionHinter turns into a panic of the session that asked;
//   - the connection's timers and request loops: package admission's
//     recoverConn.
// Each logs the stack once and, where there is a session, tells the player
// in one line and ends the session with status 1.

// recoverSession is the outermost middleware: a panic anywhere in the
// handler ends that session only.
func (s *Server) recoverSession(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer func() {
			if v := recover(); v != nil {
				_ = sess.Exit(s.panicked(sess, v, debug.Stack()))
			}
		}()
		next(sess)
	}
}

// panicked logs a panic of sess's code with its stack, tells the player
// and returns the exit status.
func (s *Server) panicked(sess ssh.Session, v any, stack []byte) int {
	if fresh, ok := v.(*session.FreshStackPanic); ok {
		v, stack = fresh.Value, fresh.Stack
	}
	var search *ai.PanicError
	if err, ok := v.(error); ok && errors.As(err, &search) {
		stack = search.Stack // where it went wrong, not where it was raised again
	}
	p := playerOf(sess)
	s.limited.Log(s.log, slog.LevelError, "panic", "panic", fmt.Sprint(v), "remote", sess.RemoteAddr().String(),
		"player", p.ID, "stack", string(stack))
	line := "ssh2048: internal error; your game is saved."
	if p.Guest {
		line = "ssh2048: internal error; sorry, this session has to end."
	}
	fmt.Fprintln(sess.Stderr(), line)
	return wire.ExitError
}

// sessionHinter raises an AI search's panic again in the session that
// asked for it: the pool survives the panic and serves everyone else, and
// the session ends as if its own code had panicked (the screen runs hints
// in its commands, which package screen contains).
type sessionHinter struct{ h tui.Hinter }

func (sh sessionHinter) Hint(ctx context.Context, b engine.Board) (engine.Direction, error) {
	return reraise(sh.h.Hint(ctx, b))
}

func (sh sessionHinter) Autoplay(ctx context.Context, b engine.Board) (engine.Direction, error) {
	return reraise(sh.h.Autoplay(ctx, b))
}

func reraise(d engine.Direction, err error) (engine.Direction, error) {
	var pe *ai.PanicError
	if errors.As(err, &pe) {
		panic(err)
	}
	return d, err
}
