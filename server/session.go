package server

import (
	"strconv"
	"sync"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/ssh2048/ssh2048/game"
	"github.com/ssh2048/ssh2048/wire"
	gossh "golang.org/x/crypto/ssh"
)

// notice is something the server must tell a running session.
type notice int

const (
	noticeTakenOver notice = iota + 1 // a newer session took over the game
	noticeShutdown                    // the server is restarting
	noticeIdle                        // no input for the idle timeout
	noticeKeepalive                   // the client stopped answering keepalives
)

// noticeText is what the player is told, one line.
func (s *Server) noticeText(n notice) string {
	switch n {
	case noticeTakenOver:
		return "This game was opened in a newer session, which takes over from here; nothing was lost."
	case noticeShutdown:
		return "The server is restarting; your game is saved. Reconnect in a moment to carry on."
	case noticeIdle:
		return "No input for " + spelled(s.lim.IdleTimeout) + ", so the server closed this session. Your game is saved; reconnect to carry on."
	case noticeKeepalive:
		return "Your connection stopped answering, so the server closed this session. Your game is saved; reconnect to carry on."
	}
	return ""
}

// exitStatus is the exit status of a session that ends because of n.
func (n notice) exitStatus() int {
	switch n {
	case noticeTakenOver:
		return wire.ExitTakenOver
	case noticeShutdown:
		return wire.ExitRestart
	case noticeIdle, noticeKeepalive:
		return wire.ExitInactive
	}
	return wire.ExitOK
}

// spelled writes a duration as a person would: "10 minutes", "3 seconds".
func spelled(d time.Duration) string {
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + one + "s"
	}
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d >= time.Minute && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	case d >= time.Second && d%time.Second == 0:
		return unit(int64(d/time.Second), "second")
	}
	return d.String()
}

// session is the server's view of one SSH session: who plays it, and a
// channel on which it is told to stop.
type session struct {
	ssh.Session
	player  game.Player
	notices chan notice // buffered; the first notice is the one that counts
	once    sync.Once
	// pokes asks for the screen to be drawn again (spectators came or
	// went); buffered, and pokes that find it full are one with the one
	// waiting.
	pokes chan struct{}
}

func newSession(s ssh.Session, p game.Player) *session {
	return &session{Session: s, player: p, notices: make(chan notice, 1), pokes: make(chan struct{}, 1)}
}

// poke asks for the session's screen to be drawn again; it never blocks.
func (sess *session) poke() {
	select {
	case sess.pokes <- struct{}{}:
	default:
	}
}

// notify delivers n unless the session was already told something.
func (sess *session) notify(n notice) {
	sess.once.Do(func() { sess.notices <- n })
}

type contextKey struct{ name string }

var playerKey = &contextKey{"player"}

// acceptKey admits every public key while the address has room for
// another player (admission.canLogIn): a key is an identity, not a
// permission. Which key it was is read after authentication from
// Session.PublicKey, never remembered here: this callback also sees keys
// the client merely offered (CVE-2024-45337). A key refused for want of
// room sends the client on to keyboard-interactive, which says why.
func (s *Server) acceptKey(ctx ssh.Context, _ ssh.PublicKey) bool {
	g := guardOf(ctx)
	return g == nil || s.admission.canLogIn(g.host, false) == admitted
}

// admitGuest admits a client without a key through keyboard-interactive
// authentication with no prompts: a guest, who plays but is not recorded.
// Password authentication is not offered at all. When there is no room
// (for guests, or for another player from the address), the challenge's
// instruction tells the client why, which OpenSSH prints, and the login
// fails.
func (s *Server) admitGuest(ctx ssh.Context, challenge gossh.KeyboardInteractiveChallenge) bool {
	if g := guardOf(ctx); g != nil {
		if r := s.admission.canLogIn(g.host, true); r != admitted {
			s.cfg.Observer.Refused(r.label())
			_, _ = challenge("", r.line(), nil, nil)
			return false
		}
	}
	_, err := challenge("", "", nil, nil)
	return err == nil
}

// identify finds the player behind the session's key and hands it on in the
// session's context.
func (s *Server) identify(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		key := sess.PublicKey() // the key that authenticated (see acceptAnyKey)
		p := game.Guest
		if key != nil {
			var err error
			onFreshStack(func() { // a database read (see stack.go)
				p, err = s.games.Identify(sess.Context(), gossh.FingerprintSHA256(key), key.Type(), sess.User())
			})
			if err != nil {
				s.log.Error("identify player", "err", err, "remote", sess.RemoteAddr().String())
				wish.Errorln(sess, "ssh2048: could not load your player record; try again later.")
				_ = sess.Exit(wire.ExitError)
				return
			}
		}
		sess.Context().SetValue(playerKey, p)
		next(sess)
	}
}

func playerOf(sess ssh.Session) game.Player {
	p, _ := sess.Context().Value(playerKey).(game.Player)
	return p
}

// logging logs every session's start and end, within the log budget of
// its address (admission.logLine); the client's strings are cut short
// (clientAttrs), and escaped like every logged string (CleanLogHandler).
func (s *Server) logging(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		start := time.Now()
		logged, unlogged := true, 0
		if g := guardOf(sess.Context()); g != nil {
			logged, unlogged = s.admission.logLine(g.host, start)
		}
		if !logged {
			next(sess)
			return
		}
		var user []any
		var fp string
		// A log line is deep work (see stack.go).
		onFreshStack(func() { user, fp = s.logConnect(sess, unlogged) })
		defer func() {
			s.log.Info("disconnect", append(user, "key", fp,
				"remote", sess.RemoteAddr().String(), "duration", time.Since(start).Round(time.Millisecond))...)
		}()
		next(sess)
	}
}

// logConnect logs a session's start, and returns the attributes its end
// is logged with.
func (s *Server) logConnect(sess ssh.Session, unlogged int) (user []any, fp string) {
	pty, _, hasPty := sess.Pty()
	fp = "guest"
	if key := sess.PublicKey(); key != nil {
		fp = gossh.FingerprintSHA256(key)
	}
	user = clientAttrs("user", sess.User())
	args := append(append([]any{}, user...), "key", fp, "remote", sess.RemoteAddr().String())
	args = append(args, clientAttrs("command", sess.RawCommand())...)
	args = append(args, "pty", hasPty)
	args = append(args, clientAttrs("term", pty.Term)...)
	args = append(args, clientAttrs("client", sess.Context().ClientVersion())...)
	if unlogged > 0 {
		args = append(args, "unlogged", unlogged) // sessions of this address left out since its last line
	}
	s.log.Info("connect", args...)
	return user, fp
}

// route sends the session where it belongs: an exec command to the command
// table, a PTY without a command to the TUI, and anything else back with a
// hint.
func (s *Server) route(next ssh.Handler) ssh.Handler {
	return func(raw ssh.Session) {
		sess := newSession(raw, playerOf(raw))
		kind := sessionKind(sess)
		s.cfg.Observer.SessionOpened(kind)
		defer s.cfg.Observer.SessionClosed(kind)
		if g := guardOf(sess.Context()); g != nil {
			g.join(sess)
			defer g.leave(sess)
		}
		if !s.track(sess) {
			wish.Errorln(sess, "ssh2048: "+s.noticeText(noticeShutdown))
			_ = sess.Exit(wire.ExitRestart)
			return
		}
		defer s.untrack(sess)
		_, _, hasPty := sess.Pty()
		switch {
		case sess.RawCommand() != "":
			_ = sess.Exit(s.exec(sess))
		case hasPty:
			_ = sess.Exit(s.runTUI(sess))
		default:
			wish.Errorln(sess, "ssh2048: no terminal; connect with `ssh -t` to play, or run `help` for the commands.")
			_ = sess.Exit(wire.ExitUsage)
		}
		next(sess)
	}
}

// Read is the session's input; any of it keeps the connection from
// idling (see guardedConn.checkIdle).
func (sess *session) Read(p []byte) (int, error) {
	n, err := sess.Session.Read(p)
	if n > 0 {
		if g := guardOf(sess.Context()); g != nil {
			g.touch()
		}
	}
	return n, err
}
